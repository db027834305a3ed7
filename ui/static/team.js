// Earshot teamwork keys (progressive enhancement; the forms of the mention
// page work without it): "a" assigns the current mention to me, and
// pressed again on a mention already mine, unassigns it. On the mention
// page it submits the page's "Assign to me" form; in the inbox it changes
// the current row in place (its badges only, so the inbox's cursor stays
// on the same element).
(function () {
  "use strict";
  var csrf = document.body.getAttribute("data-csrf") || "";
  var me = document.querySelector('script[src$="/static/team.js"]');
  var base = me ? me.getAttribute("src").replace(/\/static\/team\.js$/, "") : "";
  function announce(msg) { var l = document.getElementById("live"); if (l) { l.textContent = ""; setTimeout(function () { l.textContent = msg; }, 30); } }

  function assignRow(row) {
    var mine = row.querySelector('[data-role="assignee"][data-mine]');
    var fd = new FormData();
    fd.append("_csrf", csrf);
    fd.append("id", row.getAttribute("data-id"));
    fd.append("assignee_id", mine ? "" : "me");
    fetch(base + "/ui/assign", { method: "POST", body: fd, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } })
      .then(function (r) { return r.json(); })
      .then(function (j) {
        if (j.error) { announce(j.error.message); return; }
        var t = document.createElement("template");
        t.innerHTML = j.html;
        var fresh = t.content.querySelector(".badges"), old = row.querySelector(".badges");
        if (fresh && old) old.replaceWith(fresh);
        announce(j.assigned ? "Assigned to you" : "Unassigned");
      })
      .catch(function () { announce("Not saved: the server did not answer"); });
  }

  document.addEventListener("keydown", function (e) {
    if (e.key !== "a" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var help = document.getElementById("help");
    if (help && help.open) return;
    var list = document.getElementById("mentions");
    if (!list || list.getAttribute("data-can-write") === "false") return;
    e.preventDefault();
    var btn = document.getElementById("assign-me");
    if (list.classList.contains("single")) {
      if (btn) btn.click();
      else { var un = document.querySelector('form[action$="/a/unassign_mention"] button'); if (un) un.click(); }
      return;
    }
    var row = list.querySelector(".mention.cur");
    if (row) assignRow(row);
    else announce("Press j to pick a mention first");
  });
})();
