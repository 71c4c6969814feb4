// The browser proof of the pages in each built-in language (run by tests/browser/run.sh on a
// build of tests/fixtures/languages, one org per language):
//
// - page 1, page 2 and an entry's page of each language at 375 and 1280 px, light and dark
//   (screenshots of page 1 in target/screenshots/languages/): `lang` and `dir` as the
//   language wants, nothing scrolls sideways, no two pieces of text overlap;
// - Arabic laid out right to left: the text runs from the right, the title block stands to
//   the right of the feed links and each entry's date column to the right of its text;
// - GitHub's alerts on an entry's page: a callout each, in a colour of its own that changes
//   from light to dark, its title in that colour, on a tint a plain quote has not;
// - axe-core: no violation at all, of any impact, on page 1 and an entry's page of every
//   language, light and dark;
// - the Nu HTML checker: no error in any page of the build.
//
// Prints one line per check and closes with `languages: N passed, M failed`.
//
//   node tests/browser/languages.mjs PUBLIC_DIR CONFIG_FILE

import { mkdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { startServer } from "./server.mjs";
import { axeViolations, harness, htmlFiles, launchChromium, orgFolders, overlaps, vnuErrors } from "./support.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const SCREENSHOTS = join(REPO, "target/screenshots/languages");

const WIDTHS = [375, 1280];
const SCHEMES = ["light", "dark"];
const RIGHT_TO_LEFT = new Set(["ar"]);

const { check, attempt, finish } = harness();

async function layoutChecks(browser, language, origin) {
  const pages = [
    ["page-1", `${origin}/changelog/`],
    ["page-2", `${origin}/changelog/page/2/`],
    ["entry", `${origin}/changelog/entry-3/`],
  ];
  const dir = RIGHT_TO_LEFT.has(language) ? "rtl" : "ltr";
  for (const width of WIDTHS) {
    for (const scheme of SCHEMES) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      for (const [name, url] of pages) {
        const label = `${language} ${name} ${width}px ${scheme}`;
        await attempt(label, async () => {
          const page = await context.newPage();
          const response = await page.goto(url, { waitUntil: "load" });
          const facts = await page.evaluate(() => ({
            lang: document.documentElement.lang,
            dir: document.documentElement.dir,
            direction: getComputedStyle(document.body).direction,
            sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          }));
          const overlapping = await overlaps(page);
          check(
            `${label}: lang ${language}, dir ${dir}, nothing sideways, no text over other text`,
            response.ok() && facts.lang.toLowerCase() === language && facts.dir === dir &&
              facts.direction === dir && facts.sideways <= 0 && overlapping.length === 0,
            JSON.stringify({ status: response.status(), ...facts, overlapping }),
          );
          if (name === "page-1") {
            await page.screenshot({ path: join(SCREENSHOTS, `${language}-${width}-${scheme}.png`), fullPage: true });
          }
          if (name === "page-1" && width === 1280) await mirrorCheck(page, label, dir);
          await page.close();
        });
      }
      await context.close();
    }
  }
}

/** The header and each entry laid out from the start side: the right one in Arabic. */
async function mirrorCheck(page, label, dir) {
  const sides = await page.evaluate(() => {
    const box = (selector) => document.querySelector(selector).getBoundingClientRect();
    const brand = box(".brand");
    const feeds = box("nav.feeds");
    const meta = box("article .meta");
    const content = box("article .content");
    return { brandLeft: brand.left, feedsLeft: feeds.left, metaLeft: meta.left, contentLeft: content.left };
  });
  const startIsRight = dir === "rtl";
  check(
    `${label}: title and dates at the ${startIsRight ? "right" : "left"}, the start of a ${dir} page`,
    (sides.brandLeft > sides.feedsLeft) === startIsRight && (sides.metaLeft > sides.contentLeft) === startIsRight,
    JSON.stringify(sides),
  );
}

/** The five alerts of entry 3 (NOTE to CAUTION) and the plain quote after them. */
async function alertChecks(browser, language, origin) {
  const colours = {};
  for (const scheme of SCHEMES) {
    const label = `${language} alerts ${scheme}`;
    await attempt(label, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await page.goto(`${origin}/changelog/entry-3/`, { waitUntil: "load" });
      const seen = await page.evaluate(() => {
        const style = (element) => getComputedStyle(element);
        const alerts = [...document.querySelectorAll(".content blockquote.markdown-alert")].map((alert) => ({
          border: style(alert).borderInlineStartColor,
          width: style(alert).borderInlineStartWidth,
          background: style(alert).backgroundColor,
          text: style(alert).color,
          title: style(alert.querySelector(".markdown-alert-title strong")).color,
        }));
        const quote = document.querySelector(".content blockquote:not(.markdown-alert)");
        return { alerts, quote: { background: style(quote).backgroundColor, text: style(quote).color, border: style(quote).borderInlineStartColor } };
      });
      colours[scheme] = seen.alerts.map((alert) => alert.border);
      const own = new Set(colours[scheme]).size === 5;
      const unlikeQuote = seen.alerts.every((alert) =>
        alert.background !== seen.quote.background && alert.text !== seen.quote.text && alert.border !== seen.quote.border &&
        alert.title === alert.border && alert.width === "4px");
      check(`${label}: five callouts, a colour each, titled in it, none like the plain quote`,
        seen.alerts.length === 5 && own && unlikeQuote, JSON.stringify(seen));
      await context.close();
    });
  }
  check(`${language} alerts: each kind's colour changes from light to dark`,
    colours.light?.length === 5 && colours.light.every((colour, i) => colour !== colours.dark?.[i]),
    JSON.stringify(colours));
}

async function axeChecks(browser, language, origin) {
  for (const scheme of SCHEMES) {
    for (const [name, url] of [["page-1", `${origin}/changelog/`], ["entry", `${origin}/changelog/entry-3/`]]) {
      const label = `axe ${language} ${name} ${scheme}`;
      await attempt(label, async () => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
        const page = await context.newPage();
        await page.goto(url, { waitUntil: "load" });
        const violations = await axeViolations(page);
        check(
          `${label}: no violation`,
          violations.length === 0,
          violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`).join(", "),
        );
        await context.close();
      });
    }
  }
}

async function vnuCheck(publicDir) {
  await attempt("vnu", async () => {
    const files = await htmlFiles(publicDir);
    const messages = await vnuErrors(files);
    check(
      `vnu: zero errors in ${files.length} pages of ${(await orgFolders(publicDir)).length} languages`,
      messages.length === 0,
      messages.slice(0, 20).map((m) => `${m.url}:${m.lastLine}: ${m.message}`).join("\n       "),
    );
  });
}

async function main() {
  const [publicDir, configFile] = process.argv.slice(2);
  if (!publicDir || !configFile) {
    console.error("usage: node tests/browser/languages.mjs PUBLIC_DIR CONFIG_FILE");
    process.exit(2);
  }
  const orgUrl = /^org_url:\s*(\S+)/m.exec(await readFile(configFile, "utf8"))[1];
  const port = Number(new URL(orgUrl.replace("{org}", "x")).port);
  await mkdir(SCREENSHOTS, { recursive: true });
  const server = await startServer({ publicDir, port });
  const browser = await launchChromium();
  const orgs = await orgFolders(publicDir);
  try {
    for (const org of orgs) {
      const origin = orgUrl.replace("{org}", org);
      const language = (await readFile(join(publicDir, org, "changelog/index.html"), "utf8")).match(/<html lang="([^"]+)"/)[1];
      check(`${org}: built`, language.toLowerCase() === org, language);
      await layoutChecks(browser, language.toLowerCase(), origin);
      await alertChecks(browser, language.toLowerCase(), origin);
      await axeChecks(browser, language, origin);
    }
  } finally {
    await browser.close();
    server.close();
  }
  check("every built-in language is in the build", orgs.length === 11, orgs.join(", "));
  await vnuCheck(publicDir);
  console.log(`screenshots in ${SCREENSHOTS.replace(REPO + "/", "")}/`);
  process.exit(finish("languages"));
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exit(1);
}
