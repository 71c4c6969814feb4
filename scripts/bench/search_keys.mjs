// Keystroke latency of the changelog's search, for scripts/bench-search.sh: on page 1 of an
// org of 1,000 entries, with the CPU slowed down four times (Chrome DevTools Protocol), a
// query typed a key at a time; each key's time from its keydown to the frame that shows its
// results, by Chromium's Event Timing (which reports events over 16 ms, in steps of 8 ms).
// The peer: the same keys typed into a plain text box added to the same page, which shows
// what the page itself costs a keystroke. Also each key's time in the input event's
// listeners, the search's own script (the rest is the browser's frame, which the plain box
// pays too). Prints one JSON line per run.
//
//   node scripts/bench/search_keys.mjs PUBLIC_DIR ORG_URL RUNS

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { startServer } = await import(require.resolve("../../tests/browser/server.mjs"));
const { launchChromium } = await import(require.resolve("../../tests/browser/support.mjs"));

const [publicDir, orgUrl, runs = "5"] = process.argv.slice(2);
const QUERY = "workspace export";
const port = Number(new URL(orgUrl.replace("{org}", "x")).port);
const server = await startServer({ publicDir, port });
const browser = await launchChromium();
const drawn = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

async function typing(box) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${orgUrl.replace("{org}", "org-000")}/changelog/`, { waitUntil: "load" });
  await (await context.newCDPSession(page)).send("Emulation.setCPUThrottlingRate", { rate: 4 });
  if (box === "plain") {
    await page.evaluate(() => document.querySelector("header").appendChild(Object.assign(document.createElement("input"), { id: "plain" })));
    await page.focus("#plain");
  } else {
    await page.focus("input[type=search]");
    // The index loads on focus; a first query shows when it has.
    await page.keyboard.type("x");
    await page.waitForFunction(() => !document.querySelector(".found").hidden, null, { timeout: 20000 });
    await page.keyboard.press("Backspace");
  }
  await drawn(page);
  await page.evaluate(() => {
    window.__timings = [];
    // The script's own share: the input event's listeners, between a window listener that
    // runs before the box's own (capture) and one that runs after them (bubbling).
    window.__script = [];
    let start = 0;
    window.addEventListener("input", () => { start = performance.now(); }, true);
    window.addEventListener("input", () => { window.__script.push(performance.now() - start); });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.name === "keydown") window.__timings.push(entry.duration);
    }).observe({ type: "event", durationThreshold: 16 });
  });
  for (const key of QUERY) {
    await page.keyboard.press(key === " " ? "Space" : key);
    await drawn(page);
  }
  const { timings, script } = await page.evaluate(() => ({ timings: window.__timings, script: window.__script }));
  await context.close();
  // Keys under 16 ms are not reported: they count as 16.
  const all = [...timings, ...Array(QUERY.length - timings.length).fill(16)].sort((a, b) => a - b);
  script.sort((a, b) => a - b);
  return {
    median: all[Math.floor(all.length / 2)], worst: all[all.length - 1], keys: QUERY.length,
    script_median: Math.round(script[Math.floor(script.length / 2)] * 10) / 10,
    script_worst: Math.round(script[script.length - 1] * 10) / 10,
  };
}

for (let run = 1; run <= Number(runs); run++) {
  const plain = await typing("plain");
  const search = await typing("search");
  console.log(JSON.stringify({ run, plain, search }));
}
await browser.close();
server.close();
