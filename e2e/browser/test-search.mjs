// Search that finds and a queue without noise (issue 26, points 2 and 3):
// the search grammar in the dashboard agrees with the API, a search keeps
// the filter panel closed and its first result fully on screen at 1280×800
// and 360×780, the matched word is marked inside the row's visible line,
// the URL carries no empty parameters, a malformed search says why, and the
// Filtered view has a count and p pulls its current mention back into New.
// axe runs on each of these states.
import { join } from "node:path";
import { BASE, OUT, api, axeCheck, check, fail, finish, launch, login } from "./lib.mjs";

// firstRow describes the first mention row and its first <mark>: whether
// each lies wholly inside the viewport, and the mark inside its line's box
// (compact rows clip their one line).
async function firstRow(page) {
  return page.evaluate(() => {
    const row = document.querySelector(".mention");
    if (!row) return null;
    const inView = r => r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth && r.height > 0;
    const mark = row.querySelector("mark");
    let markVisible = false;
    if (mark) {
      const mr = mark.getBoundingClientRect();
      const box = mark.closest(".m-title, .m-text").getBoundingClientRect();
      markVisible = inView(mr) && mr.left >= box.left - 1 && mr.right <= box.right + 1 && mr.top >= box.top - 1 && mr.bottom <= box.bottom + 1;
    }
    return { rowVisible: inView(row.getBoundingClientRect()), mark: mark ? mark.textContent : "", markVisible, rows: document.querySelectorAll(".mention").length };
  });
}

async function searchFor(page, q) {
  await page.fill("#f-search", q);
  await Promise.all([page.waitForLoadState("load"), page.press("#f-search", "Enter")]);
  await page.waitForLoadState("load");
}

async function count(q) {
  const r = await api("/api/v1/mention-count?" + q);
  return r.body.data.count;
}

const browser = await launch();
try {
  for (const [w, h] of [[1280, 800], [360, 780]]) {
    console.log(`search at ${w}×${h}`);
    const ctx = await browser.newContext({ viewport: { width: w, height: h } });
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", e => errors.push(String(e)));
    await login(page);
    await page.goto(BASE + "/");
    await searchFor(page, "exports");
    check(new URL(page.url()).search === "?search=exports", `the search's URL has no empty parameters: ${new URL(page.url()).search}`);
    check(!(await page.locator("details.filters").evaluate(d => d.open)), "a search leaves the filter panel closed");
    const first = await firstRow(page);
    check(first && first.rowVisible, "the first result is fully visible without scrolling");
    check(first && /^export/i.test(first.mark) && first.markVisible, `the matched word is marked inside the row's visible line: "${first && first.mark}"`);
    await page.screenshot({ path: join(OUT, `search-${w}.png`) });
    await axeCheck(page, `search results ${w}`);

    // The grammar: the rows listed are the ones the API counts.
    for (const q of ['"export button"', "billing OR lisbon", "acme -export -billing", "exported", "source:news"]) {
      await page.goto(BASE + "/?search=" + encodeURIComponent(q));
      const n = await count("search=" + encodeURIComponent(q));
      const rows = await page.locator(".mention").count();
      check(n > 0 && rows === Math.min(n, 50), `search ${q}: ${rows} rows, the API counts ${n}`);
    }
    const none = await count("search=" + encodeURIComponent("export -export"));
    check(none === 0, "x -x finds nothing");

    // A malformed search: the reason and a hint by the search field.
    await page.goto(BASE + "/");
    await searchFor(page, '"export button');
    const err = await page.locator("#f-search-err").textContent().catch(() => "");
    check(/unbalanced quote/.test(err) && /close it/.test(err), "a malformed search says why: " + err);
    check(!(await page.locator("details.filters").evaluate(d => d.open)), "the search's error does not open the filter panel");
    await axeCheck(page, `malformed search ${w}`);
    check(errors.length === 0, "no page errors: " + errors.join("; "));
    await ctx.close();
  }

  console.log("Filtered view");
  // Make sure something is filtered: file one new mention as not relevant.
  const fresh = await api("/api/v1/mentions?status=new&is_relevant=true&limit=1");
  const filedID = fresh.body.data.items[0].id;
  const filed = await api("/api/v1/mentions/" + filedID, "PATCH", { is_relevant: false });
  check(filed.status === 200 && filed.body.data.is_relevant === false, "the API files a mention under Filtered");
  let pulled = "";
  for (const [w, h] of [[1280, 800], [360, 780]]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: h } });
    const page = await ctx.newPage();
    await login(page);
    await page.goto(BASE + "/?status=new");
    const filteredLink = page.locator(".view-list a", { hasText: "Filtered" });
    const shown = +(await filteredLink.locator(".vcount").getAttribute("data-count"));
    const apiN = await count("status=new&is_relevant=false");
    check(shown === apiN && shown > 0, `the Filtered view's count ${shown} is the API's ${apiN}`);
    if (pulled !== filedID) check(await page.locator(`#m-${filedID}`).count() === 0, "the filtered mention is not in New");
    await Promise.all([page.waitForLoadState("load"), filteredLink.click()]);
    await page.waitForLoadState("load");
    check(new URL(page.url()).search === "?is_relevant=false&status=new", "the Filtered view's URL");
    check(await page.locator(".mention").count() === Math.min(shown, 50), "the Filtered view lists its count's mentions");
    await axeCheck(page, `Filtered view ${w}`);
    if (w !== 1280) { await ctx.close(); continue; }
    // p pulls the current mention back into New.
    await page.keyboard.press("j");
    const cur = await page.locator(".mention.cur").getAttribute("data-id");
    pulled = cur;
    await Promise.all([page.waitForURL(/is_relevant=false/), page.waitForLoadState("load"), page.keyboard.press("p")]);
    await page.waitForSelector(".view-list");
    const after = +(await page.locator(".view-list a", { hasText: "Filtered" }).locator(".vcount").getAttribute("data-count"));
    check(after === shown - 1, `p pulled one back: Filtered ${shown} → ${after}`);
    const m = await api("/api/v1/mentions/" + cur);
    check(m.body.data.is_relevant === true && m.body.data.status === "new", "the pulled-back mention is relevant and new");
    await page.goto(BASE + "/?status=new");
    check(await page.locator(`#m-${cur}`).count() === 1 || (await count("status=new&is_relevant=true")) > 50, "it is back in New");
    await axeCheck(page, "New after pulling back");
    await ctx.close();
  }
} catch (e) {
  fail(e);
} finally {
  await browser.close();
}
finish("test-search.mjs");
