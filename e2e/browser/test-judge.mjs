// Corrections that teach (issue 28): a mention's page has a correction
// form; the c key focuses it; submitting it corrects the mention (REST
// agrees) and the page says a person set the category. axe on the page.
import { api, axeCheck, check, fail, finish, launch, login, BASE } from "./lib.mjs";

const browser = await launch();
try {
  const page = await (await browser.newContext()).newPage();
  await login(page);
  const list = await api("/api/v1/mentions?limit=1");
  const m = list.body.data.items[0];
  const want = m.category === "misinformation" ? "testimonial" : "misinformation";
  await page.goto(BASE + "/mentions/" + m.id);
  await axeCheck(page, "mention page with the correction form");
  await page.keyboard.press("c");
  check(await page.evaluate(() => document.activeElement && document.activeElement.id === "c-cat"), "c focuses the category of the correction form");
  await page.selectOption("#c-cat", want);
  await page.selectOption("#c-sent", "neutral");
  await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Correct" }).click()]);
  await page.waitForSelector("#c-cat");
  check((await page.textContent("body")).includes("Classification corrected"), "flash says the classification was corrected");
  check(await page.$eval("#c-cat", s => s.value) === want, "the form shows the corrected category");
  check((await page.textContent("body")).includes("corrected by a person"), "the reason says a person set it");
  const after = (await api("/api/v1/mentions/" + m.id)).body.data;
  check(after.category === want && after.sentiment === "neutral", `REST sees ${want}/neutral (got ${after.category}/${after.sentiment})`);
  await axeCheck(page, "mention page after a correction");
} catch (e) {
  fail(e);
} finally {
  await browser.close();
}
finish("test-judge");
