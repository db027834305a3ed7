// Shared helpers for the browser test files (test-*.mjs). run.sh starts one
// server and runs test.mjs, then every test-*.mjs in name order, against it;
// each file logs in on its own and exits non-zero on a failure.
import { chromium } from "playwright-core";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BASE = process.env.EARSHOT_URL;
export const KEY = process.env.EARSHOT_KEY;
export const PROJECT = process.env.EARSHOT_PROJECT;
export const OWNER_EMAIL = "owner@example.com";
// test.mjs changes the owner's password at its end; later files log in with
// whichever works (see login).
export const OWNER_PASSWORDS = ["correct-horse-42", "a-better-pass-1"];
export const OUT = join(dirname(fileURLToPath(import.meta.url)), "output");
mkdirSync(OUT, { recursive: true });

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

let failures = 0;
export function check(cond, msg) {
  if (cond) console.log("  ok   " + msg);
  else { failures++; console.log("  FAIL " + msg); }
}
export function fail(e) { failures++; console.error(e); }
export function failureCount() { return failures; }

// api calls the REST API with the test's key; body is JSON when given.
export async function api(path, method = "GET", body) {
  const headers = { Authorization: "Bearer " + KEY };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, body: json, text };
}

export async function axeCheck(page, label) {
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(AXE);
  const r = await page.evaluate(tags => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }), AXE_TAGS);
  const v = r.violations.map(x => `${x.id} ×${x.nodes.length} [${x.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", ")}]`);
  check(v.length === 0, `axe ${label}: ` + (v.length ? v.join("; ") : "0 violations"));
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

// login signs the owner in on page (a fresh context) and lands on the inbox.
export async function login(page, email = OWNER_EMAIL, passwords = OWNER_PASSWORDS) {
  for (const pw of passwords) {
    await page.goto(BASE + "/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(pw);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForLoadState("load");
    if (!new URL(page.url()).pathname.startsWith("/login")) return;
  }
  throw new Error("login failed for " + email);
}

// finish prints the tally and exits with the right status.
export function finish(name) {
  console.log(failures ? `${name}: ${failures} failure(s)` : `${name}: all checks passed`);
  process.exit(failures ? 1 : 0);
}
