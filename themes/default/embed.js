{# Optional: the page works without it. `?theme=light|dark` fixes the colour scheme: every
   `prefers-color-scheme` media query of the page's styles is made true or false to match,
   `<html>` gets `data-theme`. `?header=off` hides the page's title block (still read by
   screen readers) for a host page that has its own heading. The changelog's own links keep
   both parameters. Inside an iframe the page posts its height, `{type: "shiplog:height",
   height}`, to the host: from the first frame it is drawn at a width (never while it is
   hidden), then on every change of size. -#}
(function () {
var d = document, r = d.documentElement, q = location.search, each = [].forEach,
  m = /[?&]theme=(light|dark)(&|$)/.exec(q), theme = m && m[1], off = /[?&]header=off(&|$)/.test(q),
  keep = [theme && "theme=" + theme, off && "header=off"].filter(Boolean).join("&");
if (off) r.setAttribute("data-header", "off");
if (theme) {
  r.setAttribute("data-theme", theme);
  each.call(d.styleSheets, function (sheet) {
    each.call(sheet.cssRules, function (rule) {
      if (rule.media) rule.media.mediaText = rule.media.mediaText.replace(/\(\s*prefers-color-scheme:\s*(light|dark)\s*\)/g, function (_, s) {
        return s === theme ? "(min-width:0)" : "(max-width:-1px)";
      });
    });
  });
}
function ready() {
  each.call(d.querySelectorAll("a[href]:not([target])"), function (a) {
    if (keep && a.origin === location.origin) a.search = "?" + keep;
  });
  if (parent === window) return;
  var last = 0, queued = 0, post = function () {
    queued = 0;
    if (!r.clientWidth) return;
    var h = Math.ceil(d.body.getBoundingClientRect().height);
    if (h !== last) parent.postMessage({ type: "shiplog:height", height: (last = h) }, "*");
  }, soon = function () {
    queued = queued || requestAnimationFrame(post);
  };
  soon();
  addEventListener("load", soon);
  addEventListener("resize", soon);
  if (window.ResizeObserver) new ResizeObserver(soon).observe(d.body);
}
d.readyState === "loading" ? d.addEventListener("DOMContentLoaded", ready) : ready();
})();
