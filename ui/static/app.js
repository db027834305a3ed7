// Earshot dashboard: progressive enhancement only. Every page works without
// this file; with it the inbox gets keyboard triage, in-place status
// changes, bulk actions, infinite scroll and live new mentions, and the
// monitor form a live preview.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var csrf = document.body.getAttribute("data-csrf") || "";

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function frag(html) { var t = document.createElement("template"); t.innerHTML = html; return t.content; }
  function announce(msg) { var l = $("#live"); if (l) { l.textContent = ""; setTimeout(function () { l.textContent = msg; }, 30); } }

  function post(url, data) {
    var fd = new FormData();
    fd.append("_csrf", csrf);
    Object.keys(data).forEach(function (k) {
      var v = data[k];
      (Array.isArray(v) ? v : [v]).forEach(function (x) { fd.append(k, x); });
    });
    return fetch(url, { method: "POST", body: fd, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } })
      .then(function (r) { return r.json().then(function (j) { j._status = r.status; return j; }); });
  }

  // Selects that submit their form on change (project switcher).
  $$("select[data-autosubmit]").forEach(function (s) {
    s.addEventListener("change", function () { s.form.submit(); });
  });
  // Destructive forms ask first.
  document.addEventListener("submit", function (e) {
    var f = e.target;
    if (f.matches && f.matches("form[data-confirm]") && !window.confirm(f.getAttribute("data-confirm"))) {
      e.preventDefault();
    }
  }, true);

  initInbox();
  initPreview();

  function initInbox() {
    var list = $("#mentions");
    if (!list) return;
    var qs = list.getAttribute("data-qs") || "";
    var back = list.getAttribute("data-back") || "/";
    var canWrite = list.getAttribute("data-can-write") === "true";
    var next = list.getAttribute("data-next") || "";
    var since = list.getAttribute("data-poll-from") || "";
    var cur = null;
    var help = $("#help");

    function rows() { return $$(".mention", list); }
    function setCur(el, scroll) {
      if (cur) cur.classList.remove("cur");
      cur = el;
      if (!el) return;
      el.classList.add("cur");
      el.focus({ preventScroll: true });
      if (scroll !== false) el.scrollIntoView({ block: "nearest" });
    }
    function move(d) {
      var rs = rows();
      if (!rs.length) return;
      var i = cur ? rs.indexOf(cur) : -1;
      var n = i < 0 ? 0 : Math.max(0, Math.min(rs.length - 1, i + d));
      setCur(rs[n]);
      if (n >= rs.length - 3) loadMore();
    }
    function selected() { return $$(".sel:checked", list).map(function (c) { return c.value; }); }
    function updateCount() {
      var n = selected().length, c = $("#sel-count");
      if (c) c.textContent = n + " selected";
    }

    function setStatus(ids, status) {
      if (!ids.length) return;
      if (!canWrite) { showError("Your role can read mentions but not triage them."); return; }
      post("/ui/status?back=" + encodeURIComponent(back), { id: ids, status: status }).then(function (j) {
        if (j.error) { showError(j.error.message); return; }
        var wasCur = cur && cur.getAttribute("data-id");
        Object.keys(j.rows || {}).forEach(function (id) {
          var old = document.getElementById("m-" + id);
          if (!old) return;
          var checked = $(".sel", old) && $(".sel", old).checked;
          var nu = frag(j.rows[id]).firstElementChild;
          old.replaceWith(nu);
          if (checked && $(".sel", nu)) $(".sel", nu).checked = false;
          if (id === wasCur) setCur(nu, false);
        });
        updateCount();
        var n = Object.keys(j.rows || {}).length;
        announce(n === 1 ? "Marked " + status : n + " mentions marked " + status);
        if (j.errors && j.errors.length) showError(j.errors.length + " could not be changed: " + j.errors[0].message);
      }).catch(function () { showError("Network error; the status was not changed."); });
    }
    function showError(msg) {
      var box = $("#inbox-error");
      if (!box) {
        box = document.createElement("p");
        box.id = "inbox-error"; box.className = "error"; box.setAttribute("role", "alert");
        list.parentNode.insertBefore(box, list);
      }
      box.textContent = msg;
    }

    // Status buttons inside rows: in place instead of a page load.
    list.addEventListener("click", function (e) {
      var b = e.target.closest("button.st-btn");
      if (b) {
        e.preventDefault();
        var row = b.closest(".mention");
        setCur(row, false);
        setStatus([row.getAttribute("data-id")], b.value);
        return;
      }
      var row2 = e.target.closest(".mention");
      if (row2 && !e.target.closest("a, button, input")) setCur(row2, false);
    });
    list.addEventListener("change", function (e) { if (e.target.classList.contains("sel")) updateCount(); });
    var all = $("#select-all");
    if (all) all.addEventListener("change", function () {
      $$(".sel", list).forEach(function (c) { c.checked = all.checked; });
      updateCount();
    });
    $$("[data-bulk]").forEach(function (b) {
      b.addEventListener("click", function () {
        var ids = selected();
        if (!ids.length) { announce("Select mentions first (x or the checkboxes)"); return; }
        setStatus(ids, b.getAttribute("data-bulk"));
        if (all) all.checked = false;
      });
    });

    var keyStatus = { r: "reviewed", d: "done", i: "ignored", u: "new" };
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var t = e.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
        if (e.key === "Escape") t.blur();
        return;
      }
      if (help && help.open) return;
      var k = e.key;
      if (k === "j" || k === "ArrowDown" && cur) { e.preventDefault(); move(1); }
      else if (k === "k" || k === "ArrowUp" && cur) { e.preventDefault(); move(-1); }
      else if (keyStatus[k]) {
        e.preventDefault();
        var ids = selected();
        if (ids.length) setStatus(ids, keyStatus[k]);
        else if (cur) setStatus([cur.getAttribute("data-id")], keyStatus[k]);
        else announce("Press j to pick a mention first");
      } else if (k === "x" && cur) {
        e.preventDefault();
        var c = $(".sel", cur);
        if (c) { c.checked = !c.checked; updateCount(); }
      } else if (k === "o" && cur) {
        e.preventDefault();
        var w = window.open(cur.getAttribute("data-url"), "_blank", "noopener,noreferrer");
        if (w) w.opener = null;
      } else if (k === "/") {
        e.preventDefault();
        var d = $("details.filters"); if (d) d.open = true;
        var s = $("#f-search"); if (s) { s.focus(); s.select(); }
      } else if (k === "?") {
        e.preventDefault();
        if (help && help.showModal) help.showModal();
      }
    });

    // Infinite scroll following nextCursor.
    var loading = false;
    var more = $("#more");
    function loadMore() {
      if (loading || !next) return;
      loading = true;
      var url = "/ui/mentions?" + (qs ? qs + "&" : "") + "cursor=" + encodeURIComponent(next) + "&back=" + encodeURIComponent(back);
      fetch(url, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (j) {
        loading = false;
        if (j.error) { showError(j.error.message); next = ""; return; }
        list.appendChild(frag(j.html));
        next = j.hasMore ? j.nextCursor : "";
        if (!next && more) more.innerHTML = "<p class=\"muted\">That is everything.</p>";
        announce(j.count + " more mentions loaded");
      }).catch(function () { loading = false; });
    }
    if (more) {
      var a = $("#load-more");
      if (a) a.addEventListener("click", function (e) { e.preventDefault(); loadMore(); });
      if ("IntersectionObserver" in window) {
        new IntersectionObserver(function (es) { if (es[0].isIntersecting) loadMore(); }, { rootMargin: "600px" }).observe(more);
      }
    }

    // New mentions without reload: poll collected_since every 15 s.
    var fresh = 0;
    function poll() {
      if (document.hidden || !since || /(^|&)cursor=/.test(location.search)) return;
      fetch("/ui/poll?" + (qs ? qs + "&" : "") + "after=" + encodeURIComponent(since) + "&back=" + encodeURIComponent(back), { credentials: "same-origin" })
        .then(function (r) { return r.json(); }).then(function (j) {
          if (j.error) return;
          since = j.after || since;
          var f = frag(j.html), added = 0;
          $$(".mention", f).forEach(function (m) { if (document.getElementById(m.id)) m.remove(); else { m.classList.add("fresh"); added++; } });
          if (!added) return;
          list.insertBefore(f, list.firstChild);
          fresh += added;
          var n = $("#new-notice");
          if (n) { n.hidden = false; n.textContent = fresh + (fresh === 1 ? " new mention" : " new mentions") + " arrived at the top."; }
          var empty = $(".empty"); if (empty) empty.remove();
        }).catch(function () {});
    }
    setInterval(poll, 15000);
    window.earshotPoll = poll; // lets the browser tests poll on demand
  }

  function initPreview() {
    var form = $("#monitor-form");
    var out = $("#pv-results"), sum = $("#pv-summary");
    if (!form || !out) return;
    var timer = null, seq = 0;
    function run() {
      var data = { keywords: form.keywords.value, exclude_keywords: form.exclude_keywords.value, query_mode: form.query_mode.value, watch_accounts: form.watch_accounts.value,
        sources: $$("input[name=sources]:checked", form).map(function (c) { return c.value; }) };
      if (!data.keywords.trim() && !data.watch_accounts.trim()) { sum.textContent = "Type keywords to see what they would match."; out.innerHTML = ""; return; }
      var my = ++seq;
      post("/ui/preview", data).then(function (j) {
        if (my !== seq) return;
        if (j.error) { sum.textContent = j.error.message; out.innerHTML = ""; return; }
        sum.textContent = j.summary;
        out.innerHTML = "";
        out.appendChild(frag(j.html));
      }).catch(function () {});
    }
    form.addEventListener("input", function (e) {
      if (!e.target.hasAttribute("data-preview")) return;
      clearTimeout(timer); timer = setTimeout(run, 350);
    });
    form.addEventListener("change", function (e) {
      if (!e.target.hasAttribute("data-preview")) return;
      clearTimeout(timer); timer = setTimeout(run, 150);
    });
    run();
  }
})();
