/* shiplog "what's new" widget (SPEC section 5, docs/widget.md). Reads the org's feed.json
   once per page load; lives in shadow roots styled through adopted style sheets, so it runs
   under a host CSP without 'unsafe-inline' or 'unsafe-eval'; never throws into the host. */
(function (C) {
"use strict";
var w = window, d = document, KEY = "data-shiplog-widget";
try { if (!w.fetch || !d.documentElement.attachShadow || (w.shiplog && w.shiplog.widget)) return; } catch (e) { return; }
var SEEN = "shiplog:seen:" + C.feed, MAX = 2e6, DAY = 864e5, RTL = C.dir === "rtl";
// items: null while loading, false when the feed could not be had, else the entries.
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
// The ids of the entries the reader has seen (a Set), or null before the first opening.
function seen(ids) {
  try {
    if (ids) return localStorage.setItem(SEEN, JSON.stringify(ids));
    var v = JSON.parse(localStorage.getItem(SEEN));
    return Array.isArray(v) ? new Set(v) : null;
  } catch (e) { return null; }
}
function isNew(i, ids, from) { return ids ? !ids.has(i.id) : i.time > from; }
function attr(name, fallback, of) {
  var list = of ? [of] : triggers;
  for (var i = 0; i < list.length; i++) {
    var v = list[i].getAttribute(name);
    if (v != null && v !== "") return v;
  }
  return fallback;
}
// How many entries trigger `t` shows (or the first trigger that says).
function limit(t) { return Math.max(1, +attr("data-shiplog-limit", 10, t) || 10); }
// Everything in the feed is read now: remembered, counted (0), and drawn again without "New".
function markRead() {
  if (!items) return;
  seen(items.map(function (i) { return i.id; }));
  count();
  filled = 0;
}
function since() { return Date.now() - Math.max(0, +attr("data-shiplog-new-days", 30) || 0) * DAY; }
function scheme(of) {
  var t = (of && of.getAttribute("data-shiplog-theme")) || d.documentElement.getAttribute("data-shiplog-theme");
  return t === "light" || t === "dark" ? t : "";
}

// --- colours: light and dark follow the host; the accent is the org's -----------------
var VARS = ":host{--a:" + C.accent.light + ";--ai:#fff;--bg:#fff;--fg:#16181d;--mu:#5a626c;--ln:#e2e5e9;--so:" + C.soft.light + "}" +
  "@media (prefers-color-scheme:dark){:host(:not([data-theme=light])){--a:" + C.accent.dark + ";--ai:#0f1117;--bg:#0f1117;--fg:#eceef1;--mu:#9ba3ad;--ln:#2a2f37;--so:" + C.soft.dark + "}}" +
  ":host([data-theme=dark]){--a:" + C.accent.dark + ";--ai:#0f1117;--bg:#0f1117;--fg:#eceef1;--mu:#9ba3ad;--ln:#2a2f37;--so:" + C.soft.dark + "}";
// Out of the flow at its static place (the end of the trigger's text): it takes no room, even
// in a flex container with a gap.
var BADGE = VARS + ":host{all:initial!important;display:inline-block!important;position:absolute!important;width:0!important;height:0!important}" +
  ".sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}" +
  "@media (forced-colors:active){b,.new,.tag{border:1px solid CanvasText}}" +
  "b{position:absolute;top:-.55em;left:.1em;min-width:18px;height:18px;padding:0 5px;box-sizing:border-box;border-radius:9px;background:var(--a);color:var(--ai);font:700 11px/18px system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;text-align:center;box-shadow:0 0 0 2px var(--bg)}b[hidden]{display:none}";
var PANEL = VARS + ":host{all:initial!important;display:block!important;position:absolute!important;width:0!important;height:0!important}" +
  "dialog{box-sizing:border-box;margin:0;padding:0;border:1px solid var(--ln);border-radius:12px;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;box-shadow:0 12px 40px rgb(0 0 0/.18),0 2px 6px rgb(0 0 0/.08);overflow:hidden;max-width:calc(100vw - 16px)}" +
  "dialog[open],dialog:popover-open{display:flex;flex-direction:column}dialog::backdrop{background:transparent}" +
  // Closed, it stays laid out out of sight (not shown, not focusable, not read): opening it
  // then costs a repaint, not the styles and layout of every entry.
  "dialog:not([open]):not(:popover-open){display:flex;flex-direction:column;visibility:hidden;position:fixed;inset:0 auto auto -10000px}" +
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
  ".tag{max-width:100%;padding:0 7px;border-radius:9px;background:var(--so);color:var(--a);font-size:11px;line-height:18px;overflow-wrap:anywhere}" +
  "a{color:var(--a);text-decoration:none}a:hover{text-decoration:underline}" +
  ".title{display:block;color:var(--fg);font-weight:600;font-size:15px;line-height:1.35;overflow-wrap:anywhere}" +
  "p{margin:4px 0 0;color:var(--mu);overflow-wrap:anywhere;display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}" +
  ".empty{padding:28px 18px;color:var(--mu);text-align:center}" +
  ".foot{padding:12px 18px;border-top:1px solid var(--ln);font-weight:600}" +
  ":focus-visible{outline:2px solid var(--a);outline-offset:2px}" +
  "@media (prefers-reduced-motion:no-preference){dialog[open],dialog:popover-open{animation:in .12s ease-out}@keyframes in{from{opacity:0;transform:translateY(-4px)}}}";

// --- the feed --------------------------------------------------------------------------
// The start of an entry's text, for one without a summary: its HTML's tags dropped and a few
// entities read, by pattern (no parser: a host's CSP or Trusted Types would refuse one, and
// it would cost what a hostile feed's nesting makes it cost), in time linear in its length.
var ENTITIES = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " " };
function text(html) {
  return html.slice(0, 4000).replace(/<[^>]*>?/g, " ").replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, function (all, e) {
    var n = e[0] !== "#" ? -1 : e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : +e.slice(1);
    return n < 0 ? ENTITIES[e.toLowerCase()] || all : n > 31 && n < 0x110000 ? String.fromCodePoint(n) : " ";
  }).replace(/\s+/g, " ").trim();
}
function entry(item) {
  var time = Date.parse(item && item.date_published);
  if (!item || typeof item.title !== "string" || !item.title.trim() || typeof item.url !== "string" || !/^https?:\/\//i.test(item.url) || !isFinite(time)) return null;
  return {
    id: String(item.id), title: item.title, url: item.url, time: time, item: item,
    tags: (Array.isArray(item.tags) ? item.tags : []).filter(function (t) { return typeof t === "string"; }).slice(0, 5)
  };
}
function summary(i) {
  var s = typeof i.item.summary === "string" ? i.item.summary : text(String(i.item.content_html || ""));
  return s.length > 220 ? s.slice(0, 219).trim() + "\u2026" : s;
}
function load() {
  // No redirect is followed: the data comes from the org's own address or not at all.
  fetch(C.feed, { credentials: "omit", redirect: "error" }).then(function (r) {
    if (!r.ok || +r.headers.get("content-length") > MAX) throw 0;
    return r.text();
  }).then(function (body) {
    if (body.length > MAX) throw 0;
    var feed = JSON.parse(body);
    if (!feed || !Array.isArray(feed.items)) throw 0;
    items = feed.items.map(entry).filter(Boolean).sort(function (a, b) { return b.time - a.time; });
    count();
  }).catch(function () { items = false; }).then(function () {
    filled = 0;
    // Opened while loading: shown now, and read. Else drawn ahead, while the page is idle,
    // so that a click only shows it.
    if (!shown) return later(prepare);
    fill(limit(opener));
    markRead();
  });
}
function count() {
  var ids = seen(), from = since();
  unread = items.filter(function (i) { return isNew(i, ids, from); }).length;
  triggers.forEach(badge);
  if (unread !== told) {
    told = unread;
    try { d.dispatchEvent(new CustomEvent("shiplog:unread", { detail: { count: unread } })); } catch (e) {}
  }
}

// --- triggers: any element with data-shiplog-widget, now or later -----------------------
// "2 new updates" in the org's language: the word of n's plural category, or else "other".
function label(n) {
  var k = "other";
  try { k = new Intl.PluralRules(C.lang).select(n); } catch (e) {}
  return (C.words.unread[k] || C.words.unread.other).replace("{n}", n);
}
function badge(t) {
  var my = t.__shiplog;
  my.badge.hidden = !unread;
  my.badge.textContent = unread > 99 ? "99+" : unread;
  my.said.textContent = unread ? label(unread) : "";
  my.host.setAttribute("data-theme", scheme(t));
  // A trigger named by aria-label is not named by its text: the count joins the label.
  if (my.own != null) t.setAttribute("aria-label", unread ? my.own + ", " + label(unread) : my.own);
}
function attach(t) {
  if (t.__shiplog || !t.isConnected || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName) || t instanceof SVGElement) return;
  // A copy of a trigger (a page that swaps its body's HTML) brings the old badge's empty
  // host and the label with the count: both are made anew.
  [].forEach.call(t.querySelectorAll("[data-shiplog-badge]"), function (old) { old.remove(); });
  var host = el("span"), root = shadow(host, BADGE), b = el("b"), said = el("span", "sr");
  var own = t.getAttribute("data-shiplog-label") || t.getAttribute("aria-label");
  b.hidden = true;
  b.setAttribute("aria-hidden", "true");
  host.setAttribute("data-shiplog-badge", "");
  root.appendChild(b);
  root.appendChild(said);
  if (own != null) t.setAttribute("data-shiplog-label", own);
  t.__shiplog = { host: host, badge: b, said: said, own: own };
  t.appendChild(host);
  t.setAttribute("aria-haspopup", "dialog");
  t.setAttribute("aria-expanded", "false");
  var button = t.tagName === "BUTTON" || t.tagName === "SUMMARY";
  if (!button && !(t.tagName === "A" && t.hasAttribute("href"))) {
    if (!t.hasAttribute("role")) t.setAttribute("role", "button");
    if (!t.hasAttribute("tabindex")) t.tabIndex = 0;
  }
  // A link opens on Enter by itself (a click); Space, and both on other elements, here.
  if (!button) t.addEventListener("keydown", function (e) {
    if (e.key === " " || (e.key === "Enter" && t.tagName !== "A")) { e.preventDefault(); open(t); }
  });
  t.addEventListener("click", function (e) {
    // One opening for a click on nested triggers: the innermost one's.
    if (e.shiplog) return;
    e.shiplog = 1;
    e.preventDefault();
    open(t);
  });
  triggers.push(t);
  if (items) badge(t);
}
function scan(node) {
  if (node.nodeType !== 1) return;
  if (node.hasAttribute(KEY)) attach(node);
  [].forEach.call(node.querySelectorAll("[" + KEY + "]"), attach);
}

// --- the dialog ------------------------------------------------------------------------
function later(f) { (w.requestIdleCallback || setTimeout)(function () { try { f(); } catch (e) {} }); }
function prepare(t) {
  if (!dialog) build();
  // A page that replaced its body took the dialog's host with it.
  if (!box.isConnected) d.body.appendChild(box);
  var most = limit(t);
  if (filled !== most && !shown) fill(most);
}
function build() {
  box = el("div");
  var root = shadow(box, PANEL), head = el("div", "head"), close = el("button", "", "\u00d7"), foot = el("div", "foot"), all = el("a", "", C.words.see_all);
  dialog = el("dialog");
  dialog.setAttribute("aria-labelledby", "shiplog-title");
  // Laid out closed at a popover's width: a popover opens without laying its entries out again.
  dialog.className = "popover";
  // The org's language, for the dates (an Arabic date stays in its order).
  dialog.lang = C.lang;
  if (RTL) dialog.dir = "rtl";
  var h = el("h2", "", C.words.whats_new);
  h.id = "shiplog-title";
  close.type = "button";
  close.setAttribute("aria-label", C.words.close);
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
function fill(limit) {
  var ids = seen(), from = since();
  if (!date) {
    try { date = new Intl.DateTimeFormat(C.lang, { dateStyle: "medium", timeZone: "UTC" }); }
    catch (e) { date = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" }); }
  }
  filled = limit;
  list.textContent = "";
  if (!items || !items.length) return list.appendChild(el("li", "empty", items ? "No updates yet." : items === null ? "Loading\u2026" : "Updates could not be loaded."));
  items.slice(0, limit).forEach(function (i) {
    var li = el("li"), meta = el("div", "meta"), a = el("a", "title", i.title), t = el("time", "", date.format(i.time)), s = summary(i);
    if (isNew(i, ids, from)) meta.appendChild(el("span", "new", "New"));
    t.dateTime = new Date(i.time).toISOString();
    meta.appendChild(t);
    i.tags.forEach(function (tag) { meta.appendChild(el("span", "tag", tag)); });
    a.href = i.url;
    a.target = "_blank";
    a.rel = "noopener";
    li.appendChild(meta);
    li.appendChild(a);
    if (s) li.appendChild(el("p", "", s));
    list.appendChild(li);
  });
}
function shape(t) {
  var mode = t ? t.getAttribute(KEY) : "modal";
  if (mode === "panel" || mode === "modal") return mode;
  // A popover needs its trigger in sight to hang from.
  var r = t && t.getBoundingClientRect();
  return r && r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth ? "popover" : "modal";
}
function place(t, mode) {
  var s = dialog.style;
  dialog.className = mode;
  s.top = s.bottom = s.left = s.width = s.maxHeight = "";
  if (mode !== "popover") return;
  var r = t.getBoundingClientRect(), vw = d.documentElement.clientWidth, width = Math.min(380, vw - 16);
  var below = innerHeight - r.bottom - 16, above = r.top - 16;
  s.width = width + "px";
  s.left = Math.max(8, Math.min(r.right - width, vw - width - 8)) + "px";
  // Below the trigger, or above it when there is more room there: never over it.
  if (below >= 240 || below >= above) {
    s.top = r.bottom + 8 + "px";
    s.maxHeight = Math.max(120, Math.min(560, below)) + "px";
  } else {
    s.bottom = innerHeight - r.top + 8 + "px";
    s.maxHeight = Math.min(560, above) + "px";
  }
}
function open(t, keep) {
  try {
    if (!dialog) build();
    if (shown) return keep || hide();
    var mode = shape(t);
    opener = t || d.activeElement;
    box.setAttribute("data-theme", scheme(t));
    prepare(t);
    place(t, mode);
    // A popover opens in the top layer without making the page inert (cheaper, and the page
    // stays usable around it; Tab stays inside it); a panel or a dialog is modal.
    if (mode === "popover" && dialog.showPopover) {
      dialog.popover = "manual";
      dialog.showPopover();
      dialog.querySelector("button").focus();
    } else {
      dialog.removeAttribute("popover");
      if (mode === "popover") dialog.className = mode = "modal";
      dialog.showModal();
    }
    shown = mode;
    triggers.forEach(function (x) { x.setAttribute("aria-expanded", String(x === t)); });
    // Marked read after the opening is drawn: the badges' change restyles the host page, and
    // the reader waits for the list, not for that.
    requestAnimationFrame(function () {
      setTimeout(markRead);
    });
  } catch (e) {}
}
function hide() {
  if (!shown) return;
  shown === "popover" ? dialog.hidePopover() : dialog.close();
  shown = "";
  dialog.className = "popover";
  triggers.forEach(function (x) { x.setAttribute("aria-expanded", "false"); });
  if (opener && opener.isConnected && opener.focus) opener.focus();
  later(prepare);
}
function first() {
  triggers = triggers.filter(function (t) { return t.isConnected; });
  return triggers[0];
}

try {
  w.shiplog = { widget: 1, open: function () { open(first(), 1); }, close: hide };
  scan(d.documentElement);
  // Triggers added later, or marked later; a theme switched later.
  new MutationObserver(function (changes) {
    changes.forEach(function (c) {
      if (c.type === "childList") return [].forEach.call(c.addedNodes, scan);
      if (c.attributeName === KEY) scan(c.target);
      else if (items) triggers.forEach(badge);
    });
  }).observe(d.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: [KEY, "data-shiplog-theme"] });
  load();
} catch (e) {}
})(SHIPLOG_CONFIG);
