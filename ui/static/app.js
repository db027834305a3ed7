// Earshot dashboard: progressive enhancement only. Every page works without
// this file; with it the inbox gets keyboard triage that drains a status
// view with undo, in-place status and public-page changes, bulk actions,
// infinite scroll, live new mentions and its overview fetched after the
// rows; every page the phone menu, copy buttons, focus on a form's first
// error, g-jumps and the shortcut help; the monitor form a live preview.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var csrf = document.body.getAttribute("data-csrf") || "";
  // The base path Earshot is served under ("" at the root, "/earshot"
  // behind a proxy's sub-path): this script's own address, less its path.
  var base = basePath();

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

  initCommon();
  initInbox();
  initPreview();
  initTrigger();

  // Pages everywhere: the menu button of the phone layout, copy buttons,
  // focus on a form's first error, g-jumps and the shortcut help.
  function initCommon() {
    var menu = $(".menu-btn"), navList = $("#nav-list");
    if (menu && navList) {
      menu.hidden = false;
      menu.addEventListener("click", function () {
        var open = menu.getAttribute("aria-expanded") !== "true";
        menu.setAttribute("aria-expanded", String(open));
        navList.classList.toggle("open", open);
      });
    }
    $$("button[data-copy]").forEach(function (b) {
      var src = $(b.getAttribute("data-copy"));
      if (!src) return;
      b.hidden = false;
      var label = b.textContent;
      b.addEventListener("click", function () {
        var text = src.textContent.trim();
        var done = function () { b.textContent = "Copied"; announce("Copied to the clipboard"); setTimeout(function () { b.textContent = label; }, 2000); };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(done, function () { selectText(src); });
        } else { selectText(src); }
      });
    });
    // Tables read as cards on a phone: each cell says which column it is.
    $$(".table-wrap table").forEach(function (t) {
      var heads = $$("thead th", t).map(function (th) { return th.textContent.trim(); });
      $$("tbody tr", t).forEach(function (tr) {
        $$("td, th", tr).forEach(function (td, i) { if (heads[i] && !td.hasAttribute("colspan")) td.setAttribute("data-label", heads[i]); });
      });
    });
    // A form that came back with errors: focus its first invalid control.
    var bad = $("main [aria-invalid=\"true\"]");
    if (bad) {
      var det = bad.closest("details"); if (det) det.open = true;
      if (bad.tagName === "FIELDSET") bad = $("input, select, textarea", bad) || bad;
      bad.focus();
      bad.scrollIntoView({ block: "center" });
    } else {
      var err = $("main .error[role=alert]");
      if (err) { err.setAttribute("tabindex", "-1"); err.focus(); }
    }
    // The overview is open beside the inbox on a wide screen, folded above
    // it on a narrow one; the inbox fetches it after the page.
    function openWide() {
      $$("details[data-open-wide]").forEach(function (d) {
        if (window.matchMedia && window.matchMedia("(min-width: 1100px)").matches) d.open = true;
      });
    }
    openWide();
    var ov = $("#overview[data-src]");
    if (ov) {
      fetch(ov.getAttribute("data-src"), { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (j) {
        if (!j.html) { ov.remove(); return; }
        var wasOpen = $("details", ov) && $("details", ov).open;
        var nu = frag(j.html).firstElementChild;
        ov.replaceWith(nu);
        if (wasOpen) $("details", nu).open = true;
        openWide();
      }).catch(function () {});
    }
    var help = $("#help"), g = 0;
    var jumps = { i: "/", n: "/?status=new", m: "/monitors", v: "/groups", a: "/alerts", u: "/usage", s: "/settings", k: "/keys", w: "/webhooks" };
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      var t = e.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      if (help && help.open) return;
      if (g && jumps[e.key] && Date.now() - g < 1500) { e.preventDefault(); g = 0; location.href = base + jumps[e.key]; return; }
      g = 0;
      if (e.key === "g") { g = Date.now(); return; }
      if (e.key === "?") { e.preventDefault(); if (help && help.showModal) help.showModal(); }
    });
  }
  function selectText(el) {
    var r = document.createRange(); r.selectNodeContents(el);
    var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
    announce("Selected; press Ctrl+C to copy");
  }

  function initInbox() {
    var list = $("#mentions");
    if (!list) return;
    var qs = list.getAttribute("data-qs") || "";
    var back = list.getAttribute("data-back") || "/";
    var canWrite = list.getAttribute("data-can-write") === "true";
    var filterStatus = list.getAttribute("data-status") || "";
    var next = list.getAttribute("data-next") || "";
    var since = list.getAttribute("data-poll-from") || "";
    var cur = null;
    var help = $("#help");
    var bulk = $("#bulk");
    var undoStack = [];
    var toast = $("#toast"), toastMsg = $("#toast-msg"), toastTimer = null;

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
      if (bulk) { bulk.hidden = n === 0; document.body.classList.toggle("has-bulk", n > 0); }
    }
    function showToast(msg, canUndo) {
      if (!toast) { announce(msg); return; }
      toastMsg.textContent = msg;
      $("#undo").hidden = !canUndo;
      toast.hidden = false;
      clearTimeout(toastTimer);
      toastTimer = setTimeout(function () { toast.hidden = true; }, 10000);
    }
    var words = { reviewed: "reviewed", done: "done", ignored: "ignored", "new": "new", featured: "featured on the public page", hidden: "hidden from the public page", auto: "shown on the public page by its rule" };

    // change sets field (status or public_visibility) of ids to value. In a
    // view filtered by that field, a mention that no longer matches leaves
    // the list and the cursor moves to the next one; z (or Undo) puts it
    // back where it was, as it was.
    function change(ids, field, value, isUndo) {
      if (!ids.length) return;
      if (!canWrite) { showError("Your role can read mentions but not triage them."); return; }
      var prev = {};
      ids.forEach(function (id) { var el = document.getElementById("m-" + id); prev[id] = el ? el.getAttribute("data-" + field) : ""; });
      var data = { id: ids }; data[field] = value;
      post(base + "/ui/status?back=" + encodeURIComponent(back), data).then(function (j) {
        if (j.error) { showError(j.error.message); return; }
        var wasCur = cur && cur.getAttribute("data-id");
        var changed = Object.keys(j.rows || {});
        var filter = list.getAttribute("data-" + field) || "";
        var drain = filter && filter !== value;
        var rec = { field: field, items: [] };
        var nextCur = null;
        if (drain && wasCur && j.rows[wasCur]) {
          // The next row that stays, else the previous one.
          var rs = rows(), i = rs.indexOf(cur);
          for (var a = i + 1; a < rs.length && !nextCur; a++) if (!j.rows[rs[a].getAttribute("data-id")]) nextCur = rs[a];
          for (var b = i - 1; b >= 0 && !nextCur; b--) if (!j.rows[rs[b].getAttribute("data-id")]) nextCur = rs[b];
        }
        changed.forEach(function (id) {
          var old = document.getElementById("m-" + id);
          if (!old) return;
          var nu = frag(j.rows[id]).firstElementChild;
          if (drain) {
            var after = old.previousElementSibling;
            rec.items.push({ id: id, prev: prev[id], after: after ? after.id : "" });
            old.remove();
          } else {
            rec.items.push({ id: id, prev: prev[id] });
            old.replaceWith(nu);
            if (id === wasCur) setCur(nu, false);
          }
        });
        if (drain && wasCur && j.rows[wasCur]) { cur = null; setCur(nextCur); if (!nextCur) loadMore(); }
        if (drain) bumpCount(-rec.items.length);
        updateCount();
        var n = changed.length;
        var msg = (n === 1 ? "Marked " : n + " mentions marked ") + words[value] + (drain ? (n === 1 ? "; it left this view." : "; they left this view.") : ".");
        if (isUndo) { showToast("Undone: " + (n === 1 ? "the mention is " : n + " mentions are ") + "back as " + words[value] + ".", false); }
        else if (n) { undoStack.push(rec); showToast(msg, true); }
        announce(isUndo ? "Undone" : msg);
        if (j.errors && j.errors.length) showError(j.errors.length + " could not be changed: " + j.errors[0].message);
        if (drain && !rows().length && !next) {
          var more = $("#more");
          if (more) more.innerHTML = "<p class=\"empty\">All done here: nothing left in this view.</p>";
        }
      }).catch(function () { showError("Network error; nothing was changed."); });
    }
    function setStatus(ids, status) { change(ids, "status", status); }
    // The current view's count follows what leaves it and comes back.
    function bumpCount(d) {
      var c = $('.view-list a[aria-current="page"] .vcount');
      if (!c || !/^\d+$/.test(c.textContent)) return;
      var n = Math.max(0, parseInt(c.textContent, 10) + d);
      c.textContent = String(n); c.setAttribute("data-count", String(n));
    }
    function undo() {
      var rec = undoStack.pop();
      if (!rec) { announce("Nothing to undo"); return; }
      // Group by previous value: a bulk action may have moved mixed rows.
      var by = {};
      rec.items.forEach(function (it) { (by[it.prev] = by[it.prev] || []).push(it); });
      Object.keys(by).forEach(function (pv) {
        var items = by[pv];
        var data = { id: items.map(function (it) { return it.id; }) }; data[rec.field] = pv;
        post(base + "/ui/status?back=" + encodeURIComponent(back), data).then(function (j) {
          if (j.error) { showError(j.error.message); return; }
          var restored = null;
          items.forEach(function (it) {
            if (!j.rows || !j.rows[it.id]) return;
            var nu = frag(j.rows[it.id]).firstElementChild;
            var old = document.getElementById("m-" + it.id);
            if (old) { old.replaceWith(nu); }
            else {
              var after = it.after && document.getElementById(it.after);
              if (after) after.after(nu); else list.insertBefore(nu, list.firstChild);
            }
            if (!restored) restored = nu;
          });
          var empty = $("#more .empty"); if (empty) empty.remove();
          bumpCount(items.filter(function (it) { return it.after !== undefined; }).length);
          if (restored) setCur(restored);
          showToast("Undone: " + (items.length === 1 ? "the mention is back as " : items.length + " mentions are back as ") + words[pv] + ".", false);
          announce("Undone");
        }).catch(function () { showError("Network error; nothing was undone."); });
      });
    }
    var undoBtn = $("#undo");
    if (undoBtn) undoBtn.addEventListener("click", undo);

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
      var b = e.target.closest("button.st-btn, button.vis-btn");
      if (b) {
        e.preventDefault();
        var row = b.closest(".mention");
        setCur(row, false);
        change([row.getAttribute("data-id")], b.name, b.value);
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
    var clear = $("#sel-clear");
    if (clear) clear.addEventListener("click", function () {
      $$(".sel", list).forEach(function (c) { c.checked = false; });
      if (all) all.checked = false;
      updateCount();
      if (cur) cur.focus();
    });
    $$("[data-bulk]").forEach(function (b) {
      b.addEventListener("click", function () {
        var ids = selected();
        if (!ids.length) { announce("Select mentions first (x or the checkboxes)"); return; }
        setStatus(ids, b.getAttribute("data-bulk"));
        if (all) all.checked = false;
      });
    });
    $$("[data-bulk-vis]").forEach(function (b) {
      b.addEventListener("click", function () {
        var ids = selected();
        if (!ids.length) { announce("Select mentions first (x or the checkboxes)"); return; }
        change(ids, "public_visibility", b.getAttribute("data-bulk-vis"));
        if (all) all.checked = false;
      });
    });

    var keyStatus = { r: "reviewed", d: "done", i: "ignored", u: "new" };
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      var t = e.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
        if (e.key === "Escape") t.blur();
        return;
      }
      if (help && help.open) return;
      var k = e.key;
      if (k === "j" || k === "ArrowDown" && cur) { e.preventDefault(); move(1); }
      else if (k === "k" || k === "ArrowUp" && cur) { e.preventDefault(); move(-1); }
      else if (k === "Enter" && cur && t === cur) {
        var a = $(".m-open", cur);
        if (a) { e.preventDefault(); location.href = a.getAttribute("href"); }
      }
      else if (keyStatus[k]) {
        e.preventDefault();
        var ids = selected();
        if (ids.length) setStatus(ids, keyStatus[k]);
        else if (cur) setStatus([cur.getAttribute("data-id")], keyStatus[k]);
        else announce("Press j to pick a mention first");
      } else if ((k === "f" || k === "h") && canWrite) {
        // f: feature on the public page, h: hide from it; again: back to auto.
        e.preventDefault();
        var want = k === "f" ? "featured" : "hidden";
        var sel = selected();
        if (sel.length) change(sel, "public_visibility", want);
        else if (cur) change([cur.getAttribute("data-id")], "public_visibility", cur.getAttribute("data-public_visibility") === want ? "auto" : want);
        else announce("Press j to pick a mention first");
      } else if (k === "z") {
        e.preventDefault();
        undo();
      } else if (k === "x" && cur) {
        e.preventDefault();
        var c = $(".sel", cur);
        if (c) { c.checked = !c.checked; updateCount(); }
      } else if (k === "o" && cur) {
        e.preventDefault();
        var w = window.open(cur.getAttribute("data-url"), "_blank", "noopener,noreferrer");
        if (w) w.opener = null;
      } else if (k === "/") {
        var s = $("#f-search");
        if (!s) return;
        e.preventDefault();
        s.focus(); s.select();
      }
    });
    // The one-mention page: its row is the current one from the start.
    if (list.classList.contains("single")) { var only = $(".mention", list); if (only) { cur = only; only.classList.add("cur"); } }
    // Infinite scroll following nextCursor.
    var loading = false;
    var more = $("#more");
    function loadMore() {
      if (loading || !next) return;
      loading = true;
      var url = base + "/ui/mentions?" + (qs ? qs + "&" : "") + "cursor=" + encodeURIComponent(next) + "&back=" + encodeURIComponent(back);
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
      fetch(base + "/ui/poll?" + (qs ? qs + "&" : "") + "after=" + encodeURIComponent(since) + "&back=" + encodeURIComponent(back), { credentials: "same-origin" })
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

  // Alert forms: a spike alert takes only the monitor and negative-only
  // filters; the other controls hide (and are not sent) while "Spikes" is
  // chosen. Without JavaScript they stay and the server explains.
  function initTrigger() {
    $$("select[data-trigger]").forEach(function (sel) {
      var form = sel.form;
      function apply() {
        var spike = sel.value === "spike";
        $$("[data-for-trigger]", form).forEach(function (f) {
          var on = f.getAttribute("data-for-trigger") === sel.value;
          f.hidden = !on;
          $$("input, select, textarea", f).forEach(function (c) { c.disabled = !on; });
        });
        var sent = form.querySelector("select[name='filters.sentiment']");
        if (!sent) return;
        $$("option", sent).forEach(function (o) { o.disabled = spike && o.value !== "" && o.value !== "negative"; });
        if (sent.options[sent.selectedIndex].disabled) sent.value = "";
      }
      sel.addEventListener("change", apply);
      apply();
    });
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
      post(base + "/ui/preview", data).then(function (j) {
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

// The filter form leaves its empty fields out of the URL: a search is
// /?search=outage, not sixteen empty parameters (the server redirects to
// the same URL when this does not run).
(function () {
  var f = document.getElementById("filter-form");
  if (!f) return;
  f.addEventListener("submit", function () {
    Array.prototype.forEach.call(f.elements, function (el) {
      if (el.name && el.value === "" && !el.disabled) el.disabled = true;
    });
    setTimeout(function () { // usable again after Back (bfcache)
      Array.prototype.forEach.call(f.elements, function (el) { el.disabled = false; });
    }, 0);
  });
})();

// "← Inbox" on a mention's page goes back to the inbox view it was opened
// from (its filters, order and grouping), not to the plain inbox.
(function () {
  var link = document.querySelector("[data-back-link]");
  if (!link || !document.referrer) return;
  try {
    var from = new URL(document.referrer);
    if (from.origin === location.origin && from.pathname === basePath() + "/") link.href = from.pathname + from.search;
  } catch (e) { /* not a URL: keep the plain inbox */ }
})();

// basePath is the path the dashboard is served under, read from this
// script's address (".../static/app.js"): "" at the root.
function basePath() {
  var s = document.currentScript || document.querySelector('script[src$="/static/app.js"]');
  var p = s ? new URL(s.src, location.href).pathname : "/static/app.js";
  return p.slice(0, p.length - "/static/app.js".length);
}

// p pulls the current Filtered mention (judged not relevant, or an own
// post) back into New: its "Relevant: back to New" button, which posts the
// judgment (it teaches the relevance model) and comes back to this view.
(function () {
  document.addEventListener("keydown", function (e) {
    if (e.key !== "p" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var b = document.querySelector(".mention.cur .rel-btn");
    if (!b) return;
    e.preventDefault();
    b.click();
  });
})();
