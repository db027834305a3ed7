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
  function here() { return location.pathname + location.search; }
  function readView() {
    try { return JSON.parse(sessionStorage.getItem("earshot.view") || "null"); } catch (e) { return null; }
  }
  function writeView(v) {
    try { sessionStorage.setItem("earshot.view", JSON.stringify(v)); } catch (e) { /* storage off: no memory */ }
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

    var single = list.classList.contains("single");
    var onInbox = !single && location.pathname === base + "/";

    // Rows that are in the view: a row whose change is on its way to the
    // server is hidden (class "gone") until the server answers.
    function rows() { return $$(".mention:not(.gone)", list); }
    function byId(id) { return document.getElementById("m-" + id); }
    function setCur(el, scroll, focus) {
      if (cur) cur.classList.remove("cur", "quiet");
      cur = el;
      if (!el) return;
      el.classList.add("cur");
      if (focus !== false) el.focus({ preventScroll: true });
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
    function selected() { return $$(".mention:not(.gone) .sel:checked", list).map(function (c) { return c.value; }); }
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
      document.body.classList.add("has-toast");
      // The toast sits over the bottom of the screen: keep the current row
      // (and its buttons) above it, a phone included.
      if (cur) cur.scrollIntoView({ block: "nearest" });
      clearTimeout(toastTimer);
      toastTimer = setTimeout(function () { toast.hidden = true; document.body.classList.remove("has-toast"); }, 10000);
    }
    var words = { reviewed: "reviewed", done: "done", ignored: "ignored", "new": "new", featured: "featured on the public page", hidden: "hidden from the public page", auto: "shown on the public page by its rule" };

    // Triage is optimistic and ordered. A key acts at once on the mention(s)
    // it was pressed on: in a view filtered by the changed field a mention
    // that no longer matches leaves (hidden until the server confirms, then
    // replaced by an empty <template> that keeps its place for undo) and the
    // cursor moves on without waiting. The requests go out one at a time, in
    // the order the keys were pressed, so no key is lost or lands on another
    // mention however fast one types and however slow the server is; a
    // failure puts its mention back as it was, with a message.
    var queue = [], busy = false, pendingIds = {};
    function enqueue(job) {
      job.ids.forEach(function (id) { pendingIds[id] = (pendingIds[id] || 0) + 1; });
      queue.push(job);
      list.setAttribute("data-pending", String(queue.length + (busy ? 1 : 0)));
      pump();
    }
    function pump() {
      if (busy) return;
      var job = queue.shift();
      if (!job) { list.removeAttribute("data-pending"); return; }
      busy = true;
      var data = { id: job.ids }; data[job.field] = job.value;
      var done = function () {
        job.ids.forEach(function (id) { if (!--pendingIds[id]) delete pendingIds[id]; });
        busy = false;
        pump();
      };
      post(base + "/ui/status?back=" + encodeURIComponent(back), data).then(function (j) {
        if (j.error) job.fail(job.ids, j.error.message);
        else job.ok(j);
      }, function () { job.fail(job.ids, "Network error"); }).then(done, function (e) { done(); throw e; });
    }
    // redraw puts the server's rendering of a changed row in place, unless a
    // later key for it is still queued (its answer will) or it left the view.
    function redraw(id, html) {
      var old = byId(id);
      if (!old || !html || pendingIds[id] > 1 || old.classList.contains("gone")) return old;
      var nu = frag(html).firstElementChild;
      var c = $(".sel", old), c2 = $(".sel", nu);
      if (c && c2) c2.checked = c.checked;
      var focused = old === document.activeElement;
      old.replaceWith(nu);
      if (old === cur) setCur(nu, false, focused);
      return nu;
    }
    // leave hides a row that left the view; back shows it again.
    function leave(el) {
      if (!el || el.classList.contains("gone")) return;
      el.classList.add("gone"); el.hidden = true;
      var c = $(".sel", el); if (c) c.checked = false;
      bumpCount(-1);
    }
    function comeBack(it) {
      if (it.ph && it.ph.parentNode) { it.ph.replaceWith(it.el); it.ph = null; }
      if (!it.el.classList.contains("gone")) return;
      it.el.classList.remove("gone"); it.el.hidden = false;
      bumpCount(1);
      var empty = $("#more .empty"); if (empty) empty.remove();
    }
    // settle swaps a confirmed leaver for a placeholder that holds its place.
    function settle(it) {
      if (!it.el.classList.contains("gone") || !it.el.parentNode) return;
      it.ph = document.createElement("template");
      it.ph.setAttribute("data-slot", it.id);
      it.el.replaceWith(it.ph);
    }
    function allDone() {
      if (rows().length || next) return;
      var more = $("#more");
      if (more) more.innerHTML = "<p class=\"empty\">All done here: nothing left in this view.</p>";
    }

    // change sets field (status or public_visibility) of ids to value.
    function change(ids, field, value) {
      if (!ids.length) return;
      if (!canWrite) { showError("Your role can read mentions but not triage them."); return; }
      var filter = list.getAttribute("data-" + field) || "";
      var drain = !!filter && filter !== value;
      var rec = { field: field, drain: drain, items: [] };
      var curId = cur && cur.getAttribute("data-id");
      var nextCur = null;
      if (drain && curId && ids.indexOf(curId) >= 0) {
        // The next row that stays, else the previous one.
        var rs = rows(), i = rs.indexOf(cur);
        for (var a = i + 1; a < rs.length && !nextCur; a++) if (ids.indexOf(rs[a].getAttribute("data-id")) < 0) nextCur = rs[a];
        for (var b = i - 1; b >= 0 && !nextCur; b--) if (ids.indexOf(rs[b].getAttribute("data-id")) < 0) nextCur = rs[b];
      }
      ids.forEach(function (id) {
        var el = byId(id);
        if (!el) return;
        rec.items.push({ id: id, prev: el.getAttribute("data-" + field), el: el });
        el.setAttribute("data-" + field, value);
        if (drain) leave(el);
        else el.classList.add("pending");
      });
      if (drain && curId && ids.indexOf(curId) >= 0) {
        cur.classList.remove("cur"); cur = null; setCur(nextCur);
        // Draining down the list fetches the next page before it runs out.
        var left = rows(); if (!nextCur || left.length - left.indexOf(nextCur) <= 3) loadMore();
      }
      updateCount();
      undoStack.push(rec);
      var n = rec.items.length;
      var msg = (n === 1 ? "Marked " : n + " mentions marked ") + words[value] + (drain ? (n === 1 ? "; it left this view." : "; they left this view.") : ".");
      showToast(msg, true);
      announce(msg);
      if (drain) allDone();
      enqueue({ ids: ids, field: field, value: value,
        ok: function (j) {
          var bad = {};
          (j.errors || []).forEach(function (e) { bad[e.id] = e.message; });
          rec.items = rec.items.filter(function (it) {
            if (bad[it.id] !== undefined) { restore(it, field); return false; }
            if (drain) settle(it); else redraw(it.id, j.rows && j.rows[it.id]);
            return true;
          });
          if (j.errors && j.errors.length) showError(j.errors.length + " could not be marked " + words[value] + " and " + (j.errors.length === 1 ? "is" : "are") + " back: " + j.errors[0].message);
        },
        fail: function (failed, why) {
          rec.items.forEach(function (it) { restore(it, field); });
          rec.items = [];
          showError(why + ": " + (failed.length === 1 ? "the mention was not marked " : failed.length + " mentions were not marked ") + words[value] + " and " + (failed.length === 1 ? "is" : "are") + " back as before.");
        } });
    }
    // restore undoes a change the server refused, on the page only.
    function restore(it, field) {
      var el = byId(it.id) || it.el;
      el.setAttribute("data-" + field, it.prev);
      el.classList.remove("pending");
      comeBack(it);
    }
    function setStatus(ids, status) { change(ids, "status", status); }
    // The current view's count follows what leaves it and comes back.
    function bumpCount(d) {
      var c = $('.view-list a[aria-current="page"] .vcount');
      if (!c || !/^[\d,]+$/.test(c.textContent)) return;
      var n = Math.max(0, parseInt(c.textContent.replace(/,/g, ""), 10) + d);
      c.textContent = n.toLocaleString("en-US"); c.setAttribute("data-count", String(n));
    }
    // undo puts the last change back at once and queues its request behind
    // the ones already pressed.
    function undo() {
      var rec = undoStack.pop();
      while (rec && !rec.items.length) rec = undoStack.pop();
      if (!rec) { announce("Nothing to undo"); return; }
      var by = {}, first = null;
      rec.items.forEach(function (it) {
        (by[it.prev] = by[it.prev] || []).push(it);
        (byId(it.id) || it.el).setAttribute("data-" + rec.field, it.prev);
        if (rec.drain) comeBack(it);
        if (!first) first = it.el;
      });
      if (first && first.parentNode) setCur(first);
      var n = rec.items.length;
      var pvs = Object.keys(by);
      var msg = "Undone: " + (n === 1 ? "the mention is back as " : n + " mentions are back as ") + pvs.map(function (pv) { return words[pv]; }).join(" and ") + ".";
      showToast(msg, false);
      announce("Undone");
      pvs.forEach(function (pv) {
        var items = by[pv];
        enqueue({ ids: items.map(function (it) { return it.id; }), field: rec.field, value: pv,
          ok: function (j) {
            items.forEach(function (it) {
              if (j.rows && j.rows[it.id]) redraw(it.id, j.rows[it.id]);
              else { leaveAgain(it); }
            });
          },
          fail: function (failed, why) {
            items.forEach(leaveAgain);
            showError(why + ": nothing was undone.");
          } });
      });
      function leaveAgain(it) { if (rec.drain) { leave(it.el); settle(it); } }
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
      if (cur && k !== "?" && k !== "g") cur.classList.remove("quiet");
      if (single && (k === "j" || k === "k")) { e.preventDefault(); step(k === "j" ? 1 : -1); }
      else if (k === "j" || k === "ArrowDown" && cur) { e.preventDefault(); move(1); }
      else if (k === "k" || k === "ArrowUp" && cur) { e.preventDefault(); move(-1); }
      else if (k === "Enter" && cur && (t === cur || t === document.body)) {
        var a = $(".m-open", cur);
        if (a) { e.preventDefault(); remember(); location.href = a.getAttribute("href"); }
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
      } else if (k === "c" && canWrite && $("#c-cat")) {
        // c: correct the classification (the mention page's form).
        e.preventDefault();
        $("#c-cat").focus();
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
    // The cursor starts on a row, so the first key acts without j: the
    // one-mention page's row, the row it had when this view was left (Back),
    // else the first. It is shown, not focused: the page keeps its own focus.
    var saved = readView();
    var start = single ? $(".mention", list)
      : (onInbox && saved && saved.url === here() && saved.cur && byId(saved.cur)) || rows()[0];
    if (start) {
      setCur(start, !single && start !== rows()[0], false);
      // Quiet until a key or click uses it: a compact row keeps its one
      // line (8+ rows fit a 1280×800 screen) until then.
      if (!single) start.classList.add("quiet");
    }
    if (onInbox) {
      window.addEventListener("pagehide", remember);
      list.addEventListener("click", function (e) { if (e.target.closest("a.m-open")) remember(); });
    }
    // remember keeps, for this tab, which inbox view was left, its rows and
    // its cursor: Back restores the cursor, the mention page's "← Inbox"
    // returns to the view and its j/k walk the view's rows.
    function remember() {
      if (!onInbox) return;
      var open = document.activeElement && document.activeElement.closest && document.activeElement.closest(".mention");
      var c = open || cur;
      writeView({ url: here(), cur: c ? c.getAttribute("data-id") : "", ids: rows().map(function (r) { return r.getAttribute("data-id"); }) });
    }
    // step opens the view's next (d = 1) or previous mention from the
    // mention page.
    function step(d) {
      var v = readView(), id = cur && cur.getAttribute("data-id");
      var i = v && v.ids ? v.ids.indexOf(id) : -1;
      var to = i < 0 ? "" : v.ids[i + d];
      if (!to) { announce(i < 0 ? "Open a mention from the inbox to walk its view with j and k" : d > 0 ? "This is the view's last mention" : "This is the view's first mention"); return; }
      v.cur = to; writeView(v);
      location.href = base + "/mentions/" + encodeURIComponent(to);
    }
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
        var f = frag(j.html);
        // A row already here (its change may still be on its way) stays once.
        $$(".mention", f).forEach(function (m) { if (document.getElementById(m.id) || list.querySelector('template[data-slot="' + m.getAttribute("data-id") + '"]')) m.remove(); });
        list.appendChild(f);
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
// from (its filters, order and grouping), not to the plain inbox: the view
// this tab last left (see remember), else the referring inbox page.
(function () {
  var link = document.querySelector("[data-back-link]");
  if (!link) return;
  try {
    var v = JSON.parse(sessionStorage.getItem("earshot.view") || "null");
    if (v && typeof v.url === "string" && v.url.indexOf(basePath() + "/") === 0 && v.url.indexOf("//") < 0) { link.href = v.url; return; }
  } catch (e) { /* storage off: fall back to the referrer */ }
  if (!document.referrer) return;
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
