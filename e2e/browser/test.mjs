// Drives the Earshot dashboard in real Chromium. Started by run.sh, which
// provides a running server (EARSHOT_URL), an API key, the project id and a
// seeder binary.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BASE = process.env.EARSHOT_URL;
const KEY = process.env.EARSHOT_KEY;
const OUT = join(dirname(fileURLToPath(import.meta.url)), "output");
mkdirSync(OUT, { recursive: true });

let failures = 0;
function check(cond, msg) {
  if (cond) console.log("  ok   " + msg);
  else { failures++; console.log("  FAIL " + msg); }
}
async function api(path) {
  const r = await fetch(BASE + path, { headers: { Authorization: "Bearer " + KEY } });
  return { status: r.status, body: await r.json() };
}
async function navTiming(page) {
  return page.evaluate(() => {
    const n = performance.getEntriesByType("navigation")[0];
    return { ttfb: Math.round(n.responseStart - n.requestStart), domContentLoaded: Math.round(n.domContentLoadedEventEnd), load: Math.round(n.loadEventEnd), serverTiming: n.serverTiming.map(s => s.name + "=" + s.duration + "ms").join(" ") };
  });
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const consoleErrors = [];
  page.on("console", m => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", e => consoleErrors.push(String(e)));

  console.log("login");
  await page.goto(BASE + "/");
  check(page.url().includes("/login"), "logged out / redirects to /login");
  await page.getByLabel("Email").fill("owner@example.com");
  await page.getByLabel("Password").fill("password123");
  await Promise.all([page.waitForURL(BASE + "/"), page.getByRole("button", { name: "Log in" }).click()]);
  check(await page.locator("h1", { hasText: "Inbox" }).count() === 1, "inbox after login");

  console.log("inbox timing");
  await page.goto(BASE + "/");
  for (const q of ["", "?status=done", "?search=onboarding", "?category=bug_report&min_urgency=70", "?author_handle=dev_fan4"]) {
    await page.goto(BASE + "/" + q);
    const t = await navTiming(page);
    console.log(`  inbox${q}: ttfb ${t.ttfb} ms, DOMContentLoaded ${t.domContentLoaded} ms, load ${t.load} ms, server ${t.serverTiming}`);
  }
  await page.goto(BASE + "/");
  await page.screenshot({ path: join(OUT, "inbox-desktop.png") });

  console.log("keyboard triage");
  await page.keyboard.press("j");
  const first = page.locator(".mention.cur");
  check(await first.count() === 1, "j selects the first mention");
  const id = await first.getAttribute("data-id");
  await page.keyboard.press("r");
  await page.locator(`#m-${id} .status-reviewed`).waitFor({ timeout: 5000 });
  let m = await api("/api/v1/mentions/" + id);
  check(m.status === 200 && m.body.data.status === "reviewed", "r marks reviewed (REST sees " + (m.body.data && m.body.data.status) + ")");
  check(await page.locator(`#m-${id}.cur`).count() === 1, "the row stays current after the in-place update");

  // Bulk: x on the next two rows, then d.
  await page.keyboard.press("j");
  const id2 = await page.locator(".mention.cur").getAttribute("data-id");
  await page.keyboard.press("x");
  await page.keyboard.press("j");
  const id3 = await page.locator(".mention.cur").getAttribute("data-id");
  await page.keyboard.press("x");
  check((await page.locator("#sel-count").textContent()).startsWith("2"), "x selects two mentions");
  await page.keyboard.press("d");
  await page.locator(`#m-${id3} .status-done`).waitFor({ timeout: 5000 });
  const [m2, m3] = await Promise.all([api("/api/v1/mentions/" + id2), api("/api/v1/mentions/" + id3)]);
  check(m2.body.data.status === "done" && m3.body.data.status === "done", "bulk d marks both done");

  await page.keyboard.press("?");
  check(await page.locator("dialog#help[open]").count() === 1, "? opens the help overlay");
  await page.keyboard.press("Escape");
  await page.keyboard.press("/");
  check(await page.evaluate(() => document.activeElement && document.activeElement.id) === "f-search", "/ focuses search");
  await page.keyboard.press("Escape");

  console.log("infinite scroll and live mentions");
  const before = await page.locator(".mention").count();
  await page.locator("#more").scrollIntoViewIfNeeded();
  await page.waitForFunction(n => document.querySelectorAll(".mention").length > n, before, { timeout: 5000 }).catch(() => {});
  check(await page.locator(".mention").count() > before, `scrolling loads more (${before} → ${await page.locator(".mention").count()})`);
  execFileSync(process.env.SEED_BIN, ["--data", process.env.EARSHOT_DATA, "--project", process.env.EARSHOT_PROJECT, "--n", "2", "--prefix", "live"]);
  await page.evaluate(() => window.earshotPoll());
  await page.locator("#new-notice:not([hidden])").waitFor({ timeout: 5000 }).catch(() => {});
  check((await page.locator("#new-notice").textContent() || "").includes("2 new"), "new mentions appear without reload: " + (await page.locator("#new-notice").textContent()));

  console.log("filters in the URL");
  await page.goto(BASE + "/?category=testimonial&min_urgency=10");
  check(await page.locator("#f-category").inputValue() === "testimonial", "filters reflected in controls");
  const cats = await page.locator(".mention .cat-testimonial").count();
  check(cats > 0 && cats === await page.locator(".mention").count(), "category filter applied");

  console.log("monitors");
  await page.goto(BASE + "/monitors/new");
  await page.locator("#mf-name").fill("Acme brand");
  await page.locator("#mf-kw").fill("Acme\nacme.example");
  await page.locator("#pv-summary", { hasText: / of the \d+/ }).waitFor({ timeout: 5000 }).catch(() => {});
  const pv = await page.locator("#pv-summary").textContent();
  check(/\d+ of the \d+/.test(pv), "live preview while typing: " + pv);
  await page.getByRole("button", { name: "Create monitor" }).click();
  await page.waitForURL(BASE + "/monitors", { timeout: 10000 }).catch(async () => console.log("  form answered: " + await page.locator(".error, .field-error").allTextContents()));
  check(await page.locator(".card h2", { hasText: "Acme brand" }).count() === 1, "monitor created through the form");
  const mons = await api("/api/v1/monitors");
  check(mons.body.data.monitors.some(x => x.name === "Acme brand" && x.keywords.includes("acme.example")), "REST lists the new monitor");
  await page.screenshot({ path: join(OUT, "monitors-desktop.png") });

  console.log("public page");
  await page.goto(BASE + "/settings");
  await Promise.all([page.waitForURL(BASE + "/settings"), page.locator("#toggle-public").click()]);
  const publicURL = await page.locator("#public-url").getAttribute("href");
  check(!!publicURL && publicURL.includes("/p/"), "public page URL shown: " + publicURL);
  const anon = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const pub = await anon.newPage();
  const resp = await pub.goto(publicURL);
  check(resp.status() === 200, "public page loads logged out");
  check(await pub.locator("text=Wall of love").count() === 1, "wall of love first");
  const html = await pub.content();
  check(!html.includes("Urgency") && !html.includes(id), "no internal fields on the public page");
  await pub.screenshot({ path: join(OUT, "public-desktop.png") });
  await pub.setViewportSize({ width: 360, height: 740 });
  await pub.reload();
  check(await pub.evaluate(() => document.documentElement.scrollWidth) <= 360, "public page fits 360 px");
  await pub.screenshot({ path: join(OUT, "public-360.png") });

  console.log("phone width");
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(BASE + "/");
  check(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, "inbox fits 360 px (scrollWidth " + await page.evaluate(() => document.documentElement.scrollWidth) + ")");
  await page.screenshot({ path: join(OUT, "inbox-360.png") });
  await page.goto(BASE + "/monitors/new");
  check(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, "monitor form fits 360 px");
  await page.screenshot({ path: join(OUT, "monitor-form-360.png"), fullPage: true });

  // Unpublished again: 404.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(BASE + "/settings");
  await Promise.all([page.waitForURL(BASE + "/settings"), page.locator("#toggle-public").click()]);
  check((await pub.goto(publicURL)).status() === 404, "unpublished public page answers 404");

  check(consoleErrors.length === 0, "no console errors" + (consoleErrors.length ? ": " + consoleErrors.join(" | ") : ""));
} catch (e) {
  failures++;
  console.error(e);
} finally {
  await browser.close();
}
console.log(failures ? `${failures} failure(s)` : "all browser checks passed");
process.exit(failures ? 1 : 0);
