// A small static server for a `shiplog generate` output folder, laid out the way a CDN
// would serve it: `http://<org>.localhost:PORT/` is the folder `<output>/<org>/`, and
// `http://localhost:PORT/` is the embed example (examples/embed/), the "customer site" that
// puts an org's changelog in an iframe. Browsers resolve `*.localhost` to this machine.
//
//   node tests/browser/server.mjs [--public DIR] [--port N]    (defaults: public, 8080)
//
// The example's iframe points at http://acme.localhost:8080, the default `org_url`; on any
// other port the server rewrites that port in the example page, so it embeds this server.

import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const EXAMPLE_DIR = join(REPO, "examples/embed");
const EXAMPLE_PORT = ":8080";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".xml": "application/rss+xml; charset=utf-8",
  ".json": "application/feed+json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
};

/** The file a URL path names under `root`, or null when it would leave `root`. */
function fileUnder(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const file = resolve(root, "." + path);
  if (file !== root && !file.startsWith(root + sep)) return null;
  return path.endsWith("/") ? join(file, "index.html") : file;
}

/**
 * The rules of a `_headers` file (Netlify's format, as `shiplog generate` writes it): a path
 * pattern (`*` matches anything) on its own line, then its headers, indented.
 */
function parseHeaders(text) {
  const rules = [];
  for (const line of text.split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    if (!/^\s/.test(line)) {
      const pattern = line.trim().replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*");
      rules.push({ pattern: new RegExp(`^${pattern}$`), headers: {} });
    } else if (rules.length) {
      const [name, ...value] = line.trim().split(":");
      rules[rules.length - 1].headers[name.toLowerCase()] = value.join(":").trim();
    }
  }
  return rules;
}

/**
 * Starts serving `publicDir` on 127.0.0.1:`port`; resolves to the running server.
 * `pageHeaders` are added to every HTML page of an org. With `headersFile`, every response
 * of an org also gets the headers the build's `_headers` file gives its path, as a CDN
 * would send them (but for `Cache-Control`: the tests serve nothing from a cache).
 */
export async function startServer({ publicDir, port, pageHeaders = {}, headersFile = false }) {
  const root = resolve(publicDir);
  const rules = headersFile ? parseHeaders(await readFile(join(root, "_headers"), "utf8")) : [];
  const fromRules = (path) =>
    Object.assign({}, ...rules.filter((rule) => rule.pattern.test(path)).map((rule) => rule.headers), { "cache-control": "no-store" });
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, "http://localhost");
    const host = (request.headers.host || "").replace(/:\d+$/, "");
    const org = host.endsWith(".localhost") ? host.slice(0, -".localhost".length) : null;
    const base = org ? join(root, org) : EXAMPLE_DIR;
    let file = fileUnder(base, url.pathname);
    try {
      if (file && (await stat(file)).isDirectory()) {
        response.writeHead(301, { location: url.pathname + "/" + url.search });
        response.end();
        return;
      }
      let body = file ? await readFile(file) : null;
      if (!body) throw new Error("outside the served folder");
      if (!org && extname(file) === ".html" && port !== 8080) {
        body = body.toString("utf8").replaceAll(".localhost" + EXAMPLE_PORT, `.localhost:${port}`);
      }
      response.writeHead(200, {
        "content-type": TYPES[extname(file)] || "application/octet-stream",
        "cache-control": "no-store",
        ...(org && extname(file) === ".html" ? pageHeaders : {}),
        ...(org ? fromRules(`/${org}${url.pathname}`) : {}),
      });
      response.end(request.method === "HEAD" ? undefined : body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
      response.end("not found\n");
    }
  });
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => done(server));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : fallback;
  };
  const port = Number(option("--port", "8080"));
  const publicDir = option("--public", "public");
  await startServer({ publicDir, port });
  console.log(`serving ${publicDir} on http://<org>.localhost:${port}/ and the embed example on http://localhost:${port}/`);
}
