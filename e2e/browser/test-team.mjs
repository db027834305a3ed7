// Teamwork in the dashboard (issue 26): "a" assigns the current mention to
// me and the "Assigned to me" view lists it; a note and a tag added on the
// mention page; the tag filter; a time zone on /account changes the times
// the mention page shows. axe-core at 1280 and 360 px on each state.
import { api, axeCheck, check, fail, finish, launch, login, BASE } from "./lib.mjs";

const browser = await launch();
let mentionId = "";
try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", e => errors.push(String(e)));
  await login(page);

  async function bothWidths(label) {
    for (const [w, h] of [[1280, 800], [360, 780]]) {
      await page.setViewportSize({ width: w, height: h });
      await axeCheck(page, `${label} at ${w}`);
      const sw = await page.evaluate(() => document.documentElement.scrollWidth);
      check(sw <= w, `${label} fits ${w} px (scrollWidth ${sw})`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  console.log("a assigns the current mention to me");
  await page.goto(BASE + "/");
  await page.keyboard.press("j");
  const cur = page.locator("#mentions .mention.cur");
  mentionId = await cur.getAttribute("data-id");
  await page.keyboard.press("a");
  await cur.locator('[data-role="assignee"]', { hasText: "Assigned to you" }).waitFor({ timeout: 120000 });
  check(await page.locator("#mentions .mention.cur").getAttribute("data-id") === mentionId, "the cursor stays on the assigned mention");
  const got = await api("/api/v1/mentions/" + mentionId);
  check(got.body?.data?.assignee?.name === "Olive Owner", "stored: assignee " + JSON.stringify(got.body?.data?.assignee));
  await bothWidths("inbox with an assigned row");

  console.log("Assigned to me view");
  await page.getByRole("link", { name: /^Assigned to me/ }).click();
  await page.waitForURL(/assignee=me/);
  const rows = await page.locator("#mentions .mention").evaluateAll(ms => ms.map(m => m.getAttribute("data-id")));
  check(rows.length === 1 && rows[0] === mentionId, `Assigned to me lists exactly the assigned mention (${rows.length} rows)`);
  check(await page.locator('.view-list a[aria-current="page"]', { hasText: "Assigned to me" }).count() === 1, "the view is marked current");
  await bothWidths("Assigned to me");

  console.log("a note and a tag on the mention page");
  await page.goto(BASE + "/mentions/" + mentionId);
  check(await page.locator("#asg-now").textContent() === "Assigned to you.", "the mention page says it is mine");
  await page.getByLabel("Add a note").fill("Called them back; refund on its way.");
  await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Add note" }).click()]);
  await page.locator(".notes li", { hasText: "Called them back" }).waitFor({ timeout: 120000 });
  check(await page.locator(".notes li", { hasText: "Olive Owner" }).count() === 1, "the note shows its author");
  await page.getByLabel(/Add a tag/).fill("Refund-E2E");
  await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Add tag" }).click()]);
  await page.locator(".tag-list a", { hasText: "#refund-e2e" }).waitFor({ timeout: 120000 });
  check(true, "the tag is shown, lower-cased");
  await bothWidths("mention page with assignee, note and tag");
  const notes = await api("/api/v1/mentions/" + mentionId + "/notes");
  check(notes.body?.data?.notes?.length === 1, "the note is stored");

  console.log("filter by the tag");
  await page.goto(BASE + "/?tag=refund-e2e");
  const tagged = await page.locator("#mentions .mention").evaluateAll(ms => ms.map(m => m.getAttribute("data-id")));
  check(tagged.length === 1 && tagged[0] === mentionId, `tag=refund-e2e lists the tagged mention (${tagged.length} rows)`);
  check(await page.locator("#mentions .mention .badge.tag", { hasText: "#refund-e2e" }).count() === 1, "its row shows the tag badge");
  await bothWidths("inbox filtered by tag");

  console.log("time zone");
  await page.goto(BASE + "/mentions/" + mentionId);
  const published = () => page.locator("dt:text-is('Published') + dd time").textContent();
  const utc = await published();
  check(/UTC$/.test(utc), "times in UTC by default: " + utc);
  await page.goto(BASE + "/account");
  await page.getByLabel(/Time zone/).fill("Asia/Tokyo");
  await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Save" }).first().click()]);
  await bothWidths("account with a time zone");
  await page.goto(BASE + "/mentions/" + mentionId);
  const tokyo = await published();
  check(/JST$/.test(tokyo) && tokyo !== utc, `the mention page shows Tokyo time: ${utc} → ${tokyo}`);
  const [h1, h2] = [utc, tokyo].map(s => Number(s.match(/(\d\d):\d\d/)[1]));
  check((h1 + 9) % 24 === h2, "nine hours later");
  // Back to UTC for the files that run after this one.
  await page.goto(BASE + "/account");
  await page.getByLabel(/Time zone/).fill("");
  await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Save" }).first().click()]);
  check(errors.length === 0, "no page errors: " + errors.join("; "));
} catch (e) {
  fail(e);
} finally {
  if (mentionId) {
    await api("/api/v1/mentions/" + mentionId + "/assignee", "DELETE");
    await api("/api/v1/mentions/" + mentionId + "/tags/refund-e2e", "DELETE");
    const notes = await api("/api/v1/mentions/" + mentionId + "/notes");
    for (const n of notes.body?.data?.notes || []) await api("/api/v1/mentions/" + mentionId + "/notes/" + n.id, "DELETE");
  }
  await browser.close();
}
finish("test-team");
