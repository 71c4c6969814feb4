// The browser proof that an entry's pieces never overlap whatever its tags and title (run by
// tests/browser/run.sh on a build of tests/fixtures/long-tags: a tag longer than the date
// column, a tag of one long word, sixteen tags and a long title): page 1 and each entry's
// page at every width from 320 to 1920 px, light: no two pieces of text overlap and nothing
// scrolls sideways.
//
// Prints one line per check and closes with `layout: N passed, M failed`.
//
//   node tests/browser/layout.mjs PUBLIC_DIR CONFIG_FILE

import { readFile } from "node:fs/promises";

import { startServer } from "./server.mjs";
import { harness, launchChromium, overlaps } from "./support.mjs";

const WIDTHS = [320, 375, 480, 768, 1024, 1280, 1440, 1920];
const PAGES = ["", "long-tag/", "unbroken/", "many-tags/"];

const { check, attempt, finish } = harness();

async function main() {
  const [publicDir, configFile] = process.argv.slice(2);
  if (!publicDir || !configFile) {
    console.error("usage: node tests/browser/layout.mjs PUBLIC_DIR CONFIG_FILE");
    process.exit(2);
  }
  const orgUrl = /^org_url:\s*(\S+)/m.exec(await readFile(configFile, "utf8"))[1];
  const origin = orgUrl.replace("{org}", "acme");
  const server = await startServer({ publicDir, port: Number(new URL(origin).port) });
  const browser = await launchChromium();
  try {
    for (const width of WIDTHS) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      for (const path of PAGES) {
        const label = `${path || "page 1"} at ${width}px`;
        await attempt(label, async () => {
          const page = await context.newPage();
          const response = await page.goto(`${origin}/changelog/${path}`, { waitUntil: "load" });
          const sideways = await page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          );
          const overlapping = await overlaps(page);
          check(
            `${label}: no text over other text, nothing sideways`,
            response.ok() && sideways <= 0 && overlapping.length === 0,
            JSON.stringify({ status: response.status(), sideways, overlapping }),
          );
          await page.close();
        });
      }
      await context.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
  process.exit(finish("layout"));
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exit(1);
}
