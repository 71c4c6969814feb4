// The browser proof of the changelog's search (run by tests/browser/run.sh):
//
// - on the English org of the languages build (five entries, two to a page): from page 1,
//   with the keyboard only, the box finds the entry on page 3 by a word of its text and by
//   a tag, and opens it; axe-core finds no violation with the results showing, light and
//   dark; a page without script shows no box and is unchanged;
// - the index's budget on an org of 1,000 entries (scripts/bench/corpus.py) whose feed holds
//   them all: at most 30 % of feed.json, both gzipped. (How fast a keystroke's results are
//   drawn is measured by scripts/bench-search.sh, not timed here.)
//
// Prints one line per check and closes with `search: N passed, M failed`.
//
//   node tests/browser/search.mjs LANGUAGES_PUBLIC THOUSAND_PUBLIC CONFIG_FILE

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

import { startServer } from "./server.mjs";
import { axeViolations, harness, launchChromium, orgFolders } from "./support.mjs";

const INDEX_SHARE = 0.3;

const { check, attempt, finish } = harness();

/** Tabs from the top of the page until the search box has the focus; the presses it took. */
async function tabToSearch(page) {
  for (let presses = 1; presses <= 15; presses++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(() => document.activeElement && document.activeElement.type === "search")) return presses;
  }
  return 0;
}

async function keyboardChecks(browser, origin) {
  for (const [how, query, leave] of [
    ["a word of its text", "stream", "Tab"],
    ["a tag", "performance", "Enter"],
  ]) {
    await attempt(`search by ${how}`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${origin}/changelog/`, { waitUntil: "load" });
      const onPage1 = await page.locator("article h2 a[href='entry-1/']").count();
      const presses = await tabToSearch(page);
      await page.keyboard.type(query);
      await page.waitForFunction(() => document.querySelector(".found li a"), null, { timeout: 5000 });
      const found = await page.$$eval(".found li a", (links) => links.map((a) => a.getAttribute("href")));
      // Tab moves from the box to the first result; Enter in the box does too.
      await page.keyboard.press(leave);
      const focused = await page.evaluate(() => document.activeElement.getAttribute("href"));
      await Promise.all([page.waitForURL(/\/changelog\/entry-1\/$/, { timeout: 5000 }), page.keyboard.press("Enter")]);
      check(
        `search by ${how}: "${query}" finds the entry of page 3 from page 1, keyboard only`,
        onPage1 === 0 && presses > 0 && found.length === 1 && found[0].endsWith("/changelog/entry-1/") &&
          focused === found[0] && errors.length === 0,
        JSON.stringify({ onPage1, presses, found, focused, errors }),
      );
      await context.close();
    });
  }
  for (const scheme of ["light", "dark"]) {
    await attempt(`axe with results ${scheme}`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await page.goto(`${origin}/changelog/`, { waitUntil: "load" });
      await page.fill("input[type=search]", "update");
      await page.waitForFunction(() => document.querySelectorAll(".found li").length > 1, null, { timeout: 5000 });
      const violations = await axeViolations(page);
      check(
        `axe with the search box and its results, ${scheme}: no violation`,
        violations.length === 0,
        violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`).join(", "),
      );
      await context.close();
    });
  }
  await attempt("without script", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${origin}/changelog/`, { waitUntil: "load" });
    const boxes = await page.locator("input, form").count();
    const entries = await page.locator("article.entry").count();
    check("without script: no search box, the entries as before", boxes === 0 && entries === 2, `${boxes} boxes, ${entries} entries`);
    await context.close();
  });
}

async function budgetChecks(publicDir) {
  const [org] = await orgFolders(publicDir);
  const index = await readFile(join(publicDir, org, "changelog/search.json"));
  const feed = await readFile(join(publicDir, org, "changelog/feed.json"));
  const entries = JSON.parse(index).entries.length;
  const items = JSON.parse(feed).items.length;
  const share = gzipSync(index).length / gzipSync(feed).length;
  check(
    `index of ${entries} entries ≤ ${INDEX_SHARE * 100} % of the feed of the same entries, gzipped`,
    entries === 1000 && items === 1000 && share <= INDEX_SHARE,
    `${gzipSync(index).length} bytes against ${gzipSync(feed).length}: ${(share * 100).toFixed(1)} %`,
  );
}

async function main() {
  const [languagesDir, thousandDir, configFile] = process.argv.slice(2);
  if (!languagesDir || !thousandDir || !configFile) {
    console.error("usage: node tests/browser/search.mjs LANGUAGES_PUBLIC THOUSAND_PUBLIC CONFIG_FILE");
    process.exit(2);
  }
  const orgUrl = /^org_url:\s*(\S+)/m.exec(await readFile(configFile, "utf8"))[1];
  const port = Number(new URL(orgUrl.replace("{org}", "x")).port);
  const browser = await launchChromium();
  let server = await startServer({ publicDir: languagesDir, port });
  try {
    await keyboardChecks(browser, orgUrl.replace("{org}", "en"));
    server.close();
    server = await startServer({ publicDir: thousandDir, port });
    await budgetChecks(thousandDir);
  } finally {
    await browser.close();
    server.close();
  }
  process.exit(finish("search"));
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exit(1);
}
