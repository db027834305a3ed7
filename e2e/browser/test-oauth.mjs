// The OAuth consent page (remote MCP hosts) in Chromium: it renders for a
// logged-in person, passes axe at desktop and phone widths, and its form
// reaches the client's redirect address (the page's CSP allows it).
import { createHash, randomBytes } from "node:crypto";
import { BASE, PROJECT, check, axeCheck, launch, login, finish, fail } from "./lib.mjs";

const browser = await launch();
try {
  const reg = await (await fetch(BASE + "/oauth/register", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "Browser host", redirect_uris: ["http://127.0.0.1:9/cb"], token_endpoint_auth_method: "none" }),
  })).json();
  check(!!reg.client_id, "a client registers");
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const q = new URLSearchParams({ response_type: "code", client_id: reg.client_id, redirect_uri: "http://127.0.0.1:9/cb", state: "s1",
    code_challenge: challenge, code_challenge_method: "S256", scope: "mentions:read" });
  for (const [label, viewport] of [["desktop", { width: 1280, height: 800 }], ["phone", { width: 360, height: 780 }]]) {
    const ctx = await browser.newContext({ viewport });
    const page = await ctx.newPage();
    await login(page);
    await page.goto(BASE + "/oauth/authorize?" + q);
    check(await page.locator("h1", { hasText: "Connect Browser host" }).count() === 1, `consent page (${label})`);
    await axeCheck(page, `OAuth consent (${label})`);
    if (label === "desktop") {
      check(await page.getByLabel("mentions:read").isChecked(), "the requested scope is preselected");
      check((await page.locator("#o-project").inputValue()) === PROJECT, "the current project is preselected");
      // The redirect target is a closed port: the navigation fails, but the
      // request Chromium made (allowed by the page's CSP form-action) carries the code.
      const target = page.waitForRequest(r => r.url().startsWith("http://127.0.0.1:9/cb"), { timeout: 120000 });
      await page.getByRole("button", { name: "Approve" }).click();
      const url = new URL((await target).url());
      check(url.searchParams.get("code")?.startsWith("esc_") && url.searchParams.get("state") === "s1", "Approve sends the browser back to the client with a code");
    }
    await ctx.close();
  }
} catch (e) {
  fail(e);
} finally {
  await browser.close();
}
finish("test-oauth");
