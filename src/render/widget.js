/* shiplog "what's new" widget (SPEC section 5, docs/widget.md). Reads the org's feed.json
   once per page load; lives in shadow roots styled through adopted style sheets, so it runs
   under a host CSP without 'unsafe-inline' or 'unsafe-eval'; never throws into the host. */
(function (C) {
"use strict";
var w = window, d = document;
if (!w.fetch || !d.documentElement.attachShadow || (w.shiplog && w.shiplog.widget)) return;
var SEEN = "shiplog:seen:" + C.feed, MAX = 2e6, DAY = 864e5;
var items = null, unread = 0, told = -1, triggers = [], opener = null, box, dialog, list, filled = 0, date, shown = "";

function el(tag, cls, text) {
  var e = d.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}
function sheet(css) {
  var s = new CSSStyleSheet();
  s.replaceSync(css);
  return s;
}
function shadow(host, css) {
  var root = host.attachShadow({ mode: "open" });
  root.adoptedStyleSheets = [sheet(css)];
  return root;
}
function seen(ids) {
  try {
    if (ids) return localStorage.setItem(SEEN, JSON.stringify(ids));
    var v = JSON.parse(localStorage.getItem(SEEN));
    return Array.isArray(v) ? v : null;
  } catch (e) { return null; }
}
function attr(name, fallback) {
  for (var i = 0; i < triggers.length; i++) {
    var v = triggers[i].getAttribute(name);
    if (v != null && v !== "") return v;
  }
  return fallback;
}
function scheme(of) {
  var t = (of && of.getAttribute("data-shiplog-theme")) || d.documentElement.getAttribute("data-shiplog-theme");
  return t === "light" || t === "dark" ? t : "";
}

// --- colours: light and dark follow the host; the accent is the org's -----------------
var VARS = ":host{--a:" + C.accent.light + ";--ai:#fff;--bg:#fff;--fg:#16181d;--mu:#5a626c;--ln:#e2e5e9;--so:" + C.soft.light + "}" +
  "@media (prefers-color-scheme:dark){:host(:not([data-theme=light])){--a:" + C.accent.dark + ";--ai:#0f1117;--bg:#0f1117;--fg:#eceef1;--mu:#9ba3ad;--ln:#2a2f37;--so:" + C.soft.dark + "}}" +
  ":host([data-theme=dark]){--a:" + C.accent.dark + ";--ai:#0f1117;--bg:#0f1117;--fg:#eceef1;--mu:#9ba3ad;--ln:#2a2f37;--so:" + C.soft.dark + "}";
var BADGE = VARS + ":host{all:initial!important;display:inline-block!important;position:relative!important;width:0!important;height:0!important;vertical-align:top!important}" +
  "b{position:absolute;top:-.45em;left:.1em;min-width:18px;height:18px;padding:0 5px;box-sizing:border-box;border-radius:9px;background:var(--a);color:var(--ai);font:700 11px/18px system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;text-align:center;box-shadow:0 0 0 2px var(--bg)}b[hidden]{display:none}";
var PANEL = VARS + ":host{all:initial!important;display:block!important;position:absolute!important;width:0!important;height:0!important}" +
  "dialog{box-sizing:border-box;margin:0;padding:0;border:1px solid var(--ln);border-radius:12px;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;box-shadow:0 12px 40px rgb(0 0 0/.18),0 2px 6px rgb(0 0 0/.08);overflow:hidden;max-width:calc(100vw - 16px)}" +
  "dialog[open],dialog:popover-open{display:flex;flex-direction:column}dialog::backdrop{background:transparent}" +
  // Closed, it stays laid out out of sight (not shown, not focusable, not read): opening it
  // then costs a repaint, not the styles and layout of every entry.
  "dialog:not([open]):not(:popover-open){display:flex;flex-direction:column;visibility:hidden;position:fixed;inset:0 auto auto -10000px;contain:strict;height:600px}" +
  ".modal::backdrop,.panel::backdrop{background:rgb(10 12 16/.45)}" +
  ".popover{position:fixed;inset:auto;width:380px;max-height:min(560px,calc(100vh - 16px))}" +
  ".modal{position:fixed;inset:0;margin:auto;width:560px;max-width:calc(100vw - 32px);max-height:min(720px,calc(100vh - 64px))}" +
  ".panel{position:fixed;inset:0 0 0 auto;width:400px;max-width:100vw;height:100vh;max-height:100vh;border-radius:0;border-width:0 0 0 1px}" +
  ".head{display:flex;align-items:center;justify-content:space-between;gap:8px;padding:12px 12px 12px 18px;border-bottom:1px solid var(--ln)}" +
  "h2{margin:0;font-size:16px;font-weight:650;letter-spacing:-.01em}" +
  "button{display:grid;place-items:center;width:32px;height:32px;margin:0;padding:0;border:0;border-radius:8px;background:none;color:var(--mu);font:20px/1 system-ui,sans-serif;cursor:pointer}button:hover{background:var(--so);color:var(--fg)}" +
  "ol{flex:1;margin:0;padding:0;list-style:none;overflow:auto;overscroll-behavior:contain}" +
  "li{padding:14px 18px;border-bottom:1px solid var(--ln)}li:last-child{border-bottom:0}" +
  ".meta{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:0 0 4px;color:var(--mu);font-size:12px}" +
  ".new{padding:0 7px;border-radius:9px;background:var(--a);color:var(--ai);font-weight:700;font-size:11px;line-height:18px}" +
  ".tag{padding:0 7px;border-radius:9px;background:var(--so);color:var(--a);font-size:11px;line-height:18px}" +
  "a{color:var(--a);text-decoration:none}a:hover{text-decoration:underline}" +
  ".title{display:block;color:var(--fg);font-weight:600;font-size:15px;line-height:1.35;overflow-wrap:anywhere}" +
  "p{margin:4px 0 0;color:var(--mu);overflow-wrap:anywhere;display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}" +
  ".empty{padding:28px 18px;color:var(--mu);text-align:center}" +
  ".foot{padding:12px 18px;border-top:1px solid var(--ln);font-weight:600}" +
  ":focus-visible{outline:2px solid var(--a);outline-offset:2px}" +
  "@media (prefers-reduced-motion:no-preference){dialog[open],dialog:popover-open{animation:in .12s ease-out}@keyframes in{from{opacity:0;transform:translateY(-4px)}}}";

// --- the feed --------------------------------------------------------------------------
function text(html) {
  try { return new DOMParser().parseFromString(html, "text/html").body.textContent.replace(/\s+/g, " ").trim(); }
  catch (e) { return ""; }
}
function entry(item) {
  var time = Date.parse(item && item.date_published);
  if (!item || typeof item.title !== "string" || typeof item.url !== "string" || !/^https?:\/\//i.test(item.url) || !(time > 0)) return null;
  var summary = typeof item.summary === "string" ? item.summary : text(String(item.content_html || ""));
  return {
    id: String(item.id), title: item.title, url: item.url, time: time,
    tags: (Array.isArray(item.tags) ? item.tags : []).filter(function (t) { return typeof t === "string"; }).slice(0, 5),
    summary: summary.length > 220 ? summary.slice(0, 219).trim() + "\u2026" : summary
  };
}
function load() {
  fetch(C.feed, { credentials: "omit" }).then(function (r) {
    if (!r.ok || +r.headers.get("content-length") > MAX) throw 0;
    return r.text();
  }).then(function (body) {
    if (body.length > MAX) throw 0;
    var feed = JSON.parse(body);
    if (!feed || !Array.isArray(feed.items)) throw 0;
    items = feed.items.map(entry).filter(Boolean).sort(function (a, b) { return b.time - a.time; });
    count();
    // Drawn ahead, while the page is idle: a click then only shows it.
    later(prepare);
  }).catch(function () { items = null; });
}
function count() {
  var ids = seen(), since = Date.now() - Math.max(0, +attr("data-shiplog-new-days", 30) || 0) * DAY;
  unread = items.filter(function (i) { return ids ? ids.indexOf(i.id) < 0 : i.time > since; }).length;
  triggers.forEach(badge);
  if (unread !== told) {
    told = unread;
    try { d.dispatchEvent(new CustomEvent("shiplog:unread", { detail: { count: unread } })); } catch (e) {}
  }
}

// --- triggers: any element with data-shiplog-widget, now or later -----------------------
function label(n) { return n === 1 ? "1 new update" : n + " new updates"; }
function badge(t) {
  var b = t.__shiplog.badge;
  b.hidden = !unread;
  b.textContent = unread > 99 ? "99+" : unread;
  t.__shiplog.host.setAttribute("data-theme", scheme(t));
  var name = t.__shiplog.name;
  if (unread) t.setAttribute("aria-label", (name ? name + ", " : "") + label(unread));
  else if (name && t.__shiplog.own) t.setAttribute("aria-label", name);
  else t.removeAttribute("aria-label");
}
function attach(t) {
  if (t.__shiplog) return;
  var host = el("span"), root = shadow(host, BADGE), b = el("b");
  b.hidden = true;
  host.setAttribute("aria-hidden", "true");
  root.appendChild(b);
  t.__shiplog = { host: host, badge: b, own: t.hasAttribute("aria-label"), name: (t.getAttribute("aria-label") || t.textContent).replace(/\s+/g, " ").trim() };
  t.appendChild(host);
  t.setAttribute("aria-haspopup", "dialog");
  t.setAttribute("aria-expanded", "false");
  if (!/^(BUTTON|A|INPUT|SUMMARY)$/.test(t.tagName)) {
    if (!t.hasAttribute("role")) t.setAttribute("role", "button");
    if (!t.hasAttribute("tabindex")) t.tabIndex = 0;
    t.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(t); }
    });
  }
  t.addEventListener("click", function (e) { e.preventDefault(); open(t); });
  triggers.push(t);
  if (items) count();
}
function scan(node) {
  if (node.nodeType !== 1) return;
  if (node.hasAttribute("data-shiplog-widget")) attach(node);
  [].forEach.call(node.querySelectorAll("[data-shiplog-widget]"), attach);
}

// --- the dialog ------------------------------------------------------------------------
function later(f) { (w.requestIdleCallback || setTimeout)(function () { try { f(); } catch (e) {} }); }
function prepare() {
  if (!dialog) build();
  if (filled || shown) return;
  fill();
}
function build() {
  box = el("div");
  var root = shadow(box, PANEL), head = el("div", "head"), close = el("button", "", "\u00d7"), foot = el("div", "foot"), all = el("a", "", "See all updates \u2192");
  dialog = el("dialog");
  dialog.setAttribute("aria-labelledby", "shiplog-title");
  var h = el("h2", "", "What\u2019s new");
  h.id = "shiplog-title";
  close.type = "button";
  close.setAttribute("aria-label", "Close");
  close.addEventListener("click", hide);
  all.href = C.changelog;
  all.target = "_blank";
  all.rel = "noopener";
  head.appendChild(h);
  head.appendChild(close);
  foot.appendChild(all);
  list = el("ol");
  dialog.appendChild(head);
  dialog.appendChild(list);
  dialog.appendChild(foot);
  dialog.addEventListener("cancel", function (e) { e.preventDefault(); hide(); });
  dialog.addEventListener("click", function (e) { if (e.target === dialog) hide(); });
  dialog.addEventListener("keydown", trap);
  // A popover is not modal: a press anywhere else closes it (the trigger's own click toggles).
  d.addEventListener("pointerdown", function (e) {
    var path = e.composedPath ? e.composedPath() : [];
    if (shown === "popover" && path.indexOf(box) < 0 && path.indexOf(opener) < 0) hide();
  }, true);
  root.appendChild(dialog);
  d.body.appendChild(box);
}
function trap(e) {
  if (e.key === "Escape" && shown === "popover") return hide();
  if (e.key !== "Tab") return;
  var f = dialog.querySelectorAll("a[href],button"), first = f[0], last = f[f.length - 1], at = box.shadowRoot.activeElement;
  if (e.shiftKey ? at === first || !at : at === last) { e.preventDefault(); (e.shiftKey ? last : first).focus(); }
}
function fill() {
  var ids = seen(), since = Date.now() - Math.max(0, +attr("data-shiplog-new-days", 30) || 0) * DAY;
  var limit = Math.max(1, +attr("data-shiplog-limit", 10) || 10);
  if (!date) {
    try { date = new Intl.DateTimeFormat(C.lang, { dateStyle: "medium", timeZone: "UTC" }); }
    catch (e) { date = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" }); }
  }
  filled = 1;
  list.textContent = "";
  if (!items || !items.length) return list.appendChild(el("li", "empty", items ? "No updates yet." : "Updates could not be loaded."));
  items.slice(0, limit).forEach(function (i) {
    var li = el("li"), meta = el("div", "meta"), a = el("a", "title", i.title), t = el("time", "", date.format(i.time));
    if (ids ? ids.indexOf(i.id) < 0 : i.time > since) meta.appendChild(el("span", "new", "New"));
    t.dateTime = new Date(i.time).toISOString();
    meta.appendChild(t);
    i.tags.forEach(function (tag) { meta.appendChild(el("span", "tag", tag)); });
    a.href = i.url;
    a.target = "_blank";
    a.rel = "noopener";
    li.appendChild(meta);
    li.appendChild(a);
    if (i.summary) li.appendChild(el("p", "", i.summary));
    list.appendChild(li);
  });
}
function shape(t) {
  var mode = t ? t.getAttribute("data-shiplog-widget") : "modal";
  return mode === "panel" || mode === "modal" ? mode : t ? "popover" : "modal";
}
function place(t, mode) {
  var s = dialog.style;
  dialog.className = mode;
  s.top = s.left = "";
  if (mode === "popover") {
    var r = t.getBoundingClientRect(), vw = d.documentElement.clientWidth, width = Math.min(380, vw - 16);
    var top = r.bottom + 8, room = innerHeight - top - 8;
    if (room < 240 && r.top > room) top = Math.max(8, r.top - 8 - Math.min(560, r.top - 16));
    s.width = width + "px";
    s.left = Math.max(8, Math.min(r.right - width, vw - width - 8)) + "px";
    s.top = top + "px";
    s.maxHeight = Math.max(160, Math.min(560, innerHeight - top - 8)) + "px";
  } else s.width = s.maxHeight = "";
}
function open(t) {
  try {
    if (!dialog) build();
    if (shown) return hide();
    var mode = shape(t);
    opener = t || d.activeElement;
    box.setAttribute("data-theme", scheme(t));
    prepare();
    place(t, mode);
    // A popover opens in the top layer without making the page inert (cheaper, and the page
    // stays usable around it); a panel or a dialog is modal.
    if (mode === "popover" && dialog.showPopover) {
      dialog.popover = "manual";
      dialog.showPopover();
      dialog.querySelector("button").focus();
    } else {
      dialog.removeAttribute("popover");
      mode = "modal";
      dialog.showModal();
    }
    shown = mode;
    triggers.forEach(function (x) { x.setAttribute("aria-expanded", String(x === t)); });
    if (items) {
      seen(items.map(function (i) { return i.id; }).slice(0, 200));
      count();
      filled = 0;
    }
  } catch (e) {}
}
function hide() {
  if (!shown) return;
  shown === "popover" ? dialog.hidePopover() : dialog.close();
  shown = "";
  triggers.forEach(function (x) { x.setAttribute("aria-expanded", "false"); });
  if (opener && opener.focus) opener.focus();
  later(prepare);
}

w.shiplog = { widget: 1, open: function () { open(triggers[0]); }, close: hide };
try {
  scan(d.documentElement);
  new MutationObserver(function (changes) {
    changes.forEach(function (c) { [].forEach.call(c.addedNodes, scan); });
  }).observe(d.documentElement, { childList: true, subtree: true });
  load();
} catch (e) {}
})(SHIPLOG_CONFIG);
