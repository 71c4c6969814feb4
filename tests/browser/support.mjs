// What the browser proofs share: the pass/fail tally, how Chromium is launched, walking a
// built site, and running axe-core and the Nu HTML checker.

import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";

import { chromium } from "playwright-core";

/**
 * A tally of named checks: `check` prints one line per check, `attempt` turns an exception
 * into a failed check, `finish` prints `<label>: N passed, M failed` and gives the exit code.
 */
export function harness() {
  let passed = 0;
  let failed = 0;
  function check(name, ok, detail = "") {
    if (ok) {
      passed += 1;
      console.log(`ok   ${name}${detail ? "  " + detail : ""}`);
    } else {
      failed += 1;
      console.log(`FAIL ${name}${detail ? "\n       " + detail : ""}`);
    }
  }
  async function attempt(name, body) {
    try {
      await body();
    } catch (error) {
      check(name, false, String(error && error.stack ? error.stack : error));
    }
  }
  function finish(label) {
    console.log(`${label}: ${passed} passed, ${failed} failed`);
    return failed === 0 && passed > 0 ? 0 : 1;
  }
  return { check, attempt, finish };
}

/** Debian's Chromium, headless, with nothing of its own going to the network. */
export function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

/** Whether a request stays on this machine (or needs no network at all). */
export function isLocal(url) {
  const { protocol, hostname } = new URL(url);
  if (protocol === "data:" || protocol === "about:" || protocol === "blob:") return true;
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "127.0.0.1";
}

/** Every `.html` file under `dir`, sorted. */
export async function htmlFiles(dir) {
  const found = [];
  for (const item of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) found.push(...(await htmlFiles(path)));
    else if (item.name.endsWith(".html")) found.push(path);
  }
  return found.sort();
}

/** The org folders of the built site, sorted (files such as `_headers` are not orgs). */
export async function orgFolders(publicDir) {
  return (await readdir(publicDir, { withFileTypes: true }))
    .filter((item) => item.isDirectory())
    .map((item) => item.name)
    .sort();
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");
const VNU_JAR = require.resolve("vnu-jar/build/dist/vnu.jar");

/** axe-core's violations on the page as it is now. */
export async function axeViolations(page) {
  await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async () => (await window.axe.run(document)).violations);
}

/** The Nu HTML checker's errors (and fatal messages) in `files`. */
export async function vnuErrors(files) {
  let output;
  try {
    output = (await promisify(execFile)("java", ["-jar", VNU_JAR, "--errors-only", "--format", "json", ...files], {
      maxBuffer: 1 << 26,
    })).stderr;
  } catch (error) {
    output = error.stderr;
    if (!output) throw error;
  }
  return JSON.parse(output).messages.filter((m) => m.type === "error" || m.subType === "fatal");
}

/**
 * Pairs of visible text boxes that overlap (by more than a pixel each way), where neither
 * holds the other: each element with text of its own, measured by its text's boxes.
 */
export function overlaps(page) {
  return page.evaluate(() => {
    const boxes = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) {
        if (rect.width > 1 && rect.height > 1) boxes.push({ node, rect });
      }
    }
    const found = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].rect;
        const b = boxes[j].rect;
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 1 && y > 1 && boxes[i].node !== boxes[j].node) {
          found.push(`"${boxes[i].node.textContent.trim().slice(0, 30)}" / "${boxes[j].node.textContent.trim().slice(0, 30)}"`);
        }
      }
    }
    return found.slice(0, 5);
  });
}
