// Optimistic, ordered triage (issue 26, point 1) and the smaller dashboard
// fixes (point 5). The server's answers to triage are slowed by 300–800 ms
// with Playwright's request routing (no server change): keys typed faster
// than that must each land on the mention they were pressed on, in order.
import { BASE, api, axeCheck, check, fail, finish, launch, login, OUT } from "./lib.mjs";
import { join } from "node:path";

const MINUTES = 4 * 60000;
const sleep = ms => new Promise(r => setTimeout(r, ms));
const statusOf = async id => (await api("/api/v1/mentions/" + id)).body?.data?.status;
const idle = page => page.waitForFunction(() => !document.querySelector("#mentions[data-pending]"), null, { timeout: MINUTES });
const curId = page => page.locator(".mention.cur").getAttribute("data-id");

// slow delays every triage request by 300–800 ms; fail, when set, answers
// the n-th one (1-based) with a server error instead.
async function slow(page, failNth = 0) {
  let n = 0;
  await page.route("**/ui/status**", async route => {
    const me = ++n;
    await sleep(300 + Math.floor(Math.random() * 500));
    if (me === failNth) return route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ error: { code: "internal", message: "injected failure" } }) });
    return route.continue();
  });
}

// newIds opens the New view and returns its rows' ids (at least want).
async function newIds(page, want) {
  await page.goto(BASE + "/?status=new");
  const ids = await page.locator(".mention").evaluateAll(ms => ms.map(m => m.dataset.id));
  if (ids.length < want) throw new Error(`New holds ${ids.length} mentions, the test needs ${want}`);
  return ids;
}

const browser = await launch();
try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", e => errors.push(String(e)));
  await login(page);

  console.log("the first key acts without j");
  let ids = await newIds(page, 14);
  check(await curId(page) === ids[0], "the cursor starts on the first row");
  await page.keyboard.press("r");
  await idle(page);
  check(await statusOf(ids[0]) === "reviewed", "the first r marks the first mention reviewed");
  check(await curId(page) === ids[1], "and the cursor moved on to the next");

  console.log("fast keys over slow answers");
  await slow(page);
  ids = await newIds(page, 14);
  const keys = "drdidrrdidrd".split("");
  const want = { d: "done", r: "reviewed", i: "ignored" };
  for (const k of keys) await page.keyboard.press(k);
  check(await curId(page) === ids[keys.length], "the cursor moved once per key before any answer came back");
  const last = want[keys[keys.length - 1]];
  check((await page.locator("#toast-msg").textContent()) === `Marked ${last}; it left this view.`, "the toast names the last key's status: " + await page.locator("#toast-msg").textContent());
  check(await page.locator("#mentions[data-pending]").count() === 1, "the answers are still on their way (the delay is in effect)");
  await idle(page);
  const got = await Promise.all(keys.map((_, i) => statusOf(ids[i])));
  const wrong = keys.map((k, i) => got[i] === want[k] ? "" : `${ids[i]}: ${k} → ${got[i]}`).filter(Boolean);
  check(wrong.length === 0, `all ${keys.length} keys landed on their own mention (${wrong.join(", ") || "0 lost, 0 misapplied"})`);
  check(await statusOf(ids[keys.length]) === "new", "the mention under the cursor was not touched");
  check((await page.locator("#toast-msg").textContent()) === `Marked ${last}; it left this view.`, "the toast still names the last key's status once all answered");
  check(await page.locator("#inbox-error").count() === 0, "no error was shown");
  check(await page.locator(".mention").evaluateAll((ms, gone) => ms.every(m => !gone.includes(m.dataset.id)), ids.slice(0, keys.length)), "none of the triaged mentions is left in the view");

  console.log("undo before the answer");
  ids = await newIds(page, 3);
  await page.keyboard.press("d");
  await page.keyboard.press("z");
  check(await curId(page) === ids[0] && await page.locator(`#m-${ids[0]}:not([hidden])`).count() === 1, "z puts the mention back at once");
  await idle(page);
  check(await statusOf(ids[0]) === "new", "d then z before any answer leaves it new (REST)");

  console.log("a failed change puts its mention back");
  await page.unroute("**/ui/status**");
  await slow(page, 2);
  ids = await newIds(page, 4);
  await page.keyboard.press("d");
  await page.keyboard.press("d");
  await page.keyboard.press("r");
  await idle(page);
  check(await statusOf(ids[0]) === "done" && await statusOf(ids[2]) === "reviewed", "the changes around the failed one went through");
  check(await statusOf(ids[1]) === "new", "the failed one is unchanged on the server");
  check(await page.locator(`#m-${ids[1]}:not([hidden])`).count() === 1, "and back in the view");
  check(/injected failure.*back as before/.test(await page.locator("#inbox-error").textContent()), "with a message: " + await page.locator("#inbox-error").textContent());
  await page.unroute("**/ui/status**");

  console.log("Back restores the cursor; ← Inbox returns to the view; keys on the mention page");
  await slow(page);
  const view = "/?status=new&sort=urgency";
  await page.goto(BASE + view);
  ids = await page.locator(".mention").evaluateAll(ms => ms.map(m => m.dataset.id));
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await Promise.all([page.waitForURL(BASE + "/mentions/" + ids[2]), page.keyboard.press("Enter")]);
  await page.goBack();
  await page.waitForURL(BASE + view);
  check(await curId(page) === ids[2], "after Back the cursor is on the mention that was opened");
  await Promise.all([page.waitForURL(BASE + "/mentions/" + ids[2]), page.keyboard.press("Enter")]);
  await Promise.all([page.waitForURL(BASE + "/mentions/" + ids[3]), page.keyboard.press("j")]);
  check(page.url() === BASE + "/mentions/" + ids[3], "j on the mention page opens the view's next mention");
  await Promise.all([page.waitForURL(BASE + "/mentions/" + ids[2]), page.keyboard.press("k")]);
  check(page.url() === BASE + "/mentions/" + ids[2], "k goes back to the previous one");
  await page.keyboard.press("d");
  check((await page.locator("#toast-msg").textContent()) === "Marked done.", "d on the mention page marks it, with a toast");
  await idle(page);
  check(await statusOf(ids[2]) === "done", "REST sees it done");
  check(await page.locator(".mention.cur .status-done").count() === 1, "the row shows done");
  await axeCheck(page, "mention page with the toast (1280)");
  await Promise.all([page.waitForURL(BASE + view), page.getByRole("link", { name: "← Inbox" }).click()]);
  check(new URL(page.url()).search === new URL(BASE + view).search, "← Inbox returns to the view it came from: " + page.url());
  await page.unroute("**/ui/status**");

  console.log("the toast on a phone");
  await page.setViewportSize({ width: 360, height: 780 });
  ids = await newIds(page, 6);
  for (const k of "jjj") await page.keyboard.press(k);
  await page.keyboard.press("d");
  await idle(page);
  const overlap = await page.evaluate(() => {
    const t = document.getElementById("toast").getBoundingClientRect();
    const bs = [...document.querySelectorAll(".mention.cur .m-actions a, .mention.cur .m-actions button")].map(b => b.getBoundingClientRect()).filter(r => r.height > 0);
    return { n: bs.length, hit: bs.filter(r => r.bottom > t.top && r.top < t.bottom && r.right > t.left && r.left < t.right).length };
  });
  check(overlap.n > 0 && overlap.hit === 0, `the undo toast covers none of the current row's ${overlap.n} controls at 360×780 (${overlap.hit} covered)`);
  await page.screenshot({ path: join(OUT, "triage-toast-360.png") });
  await axeCheck(page, "inbox with the toast (360)");
  await page.setViewportSize({ width: 1280, height: 800 });
  await axeCheck(page, "inbox with the toast (1280)");

  console.log("rows: target sizes and whole badges, both widths");
  for (const [w, h] of [[1280, 800], [360, 780]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.goto(BASE + "/");
    check(await page.locator(".mention.cur.quiet").count() === 1, `${w}: the cursor starts quietly on the first row`);
    await page.keyboard.press("j");
    const t = await page.evaluate(() => {
      const cur = document.querySelector(".mention.cur");
      const box = el => el && el.getBoundingClientRect();
      return { title: box(cur.querySelector(".m-title a")).height, open: box(cur.querySelector(".m-actions a.open")).height };
    });
    check(t.title >= 24 && t.open >= 24, `${w}: the current row's title link (${t.title.toFixed(1)} px) and "Open original" (${t.open.toFixed(1)} px) are at least 24 px tall`);
    const cut = await page.evaluate(() => [...document.querySelectorAll(".mention.compact")].flatMap(m => {
      const row = m.getBoundingClientRect(), bs = m.querySelector(".badges"), c = bs.getBoundingClientRect();
      return [...bs.querySelectorAll(".badge")].filter(b => {
        const r = b.getBoundingClientRect();
        const shown = r.top < c.bottom - 1 && r.width > 0;
        return shown && (r.right > c.right + 0.5 || r.right > row.right || r.bottom > c.bottom + 0.5);
      }).map(b => m.id + ": " + b.textContent.trim());
    }));
    check(cut.length === 0, `${w}: no badge is cut at a row's edge (${cut.slice(0, 3).join(", ") || "none"})`);
    const statusShown = await page.evaluate(() => [...document.querySelectorAll(".mention.compact")].every(m => {
      const s = m.querySelector(".badge.status").getBoundingClientRect(), c = m.querySelector(".badges").getBoundingClientRect();
      return s.width > 0 && s.top < c.bottom - 1 && s.right <= c.right + 0.5;
    }));
    check(statusShown, `${w}: every compact row shows its status badge whole`);
    await axeCheck(page, `inbox with the cursor on the second row (${w})`);
  }

  check(errors.length === 0, "no page errors: " + errors.join("; "));
} catch (e) {
  fail(e);
} finally {
  await browser.close();
}
finish("test-triage.mjs");
