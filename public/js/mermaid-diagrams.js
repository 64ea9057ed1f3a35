// Draws Mermaid code blocks as diagrams when JavaScript runs; without it they stay readable code. Mermaid's bundle is
// served from node_modules (/static/vendor/mermaid) and only loaded on pages that have a diagram.
(function () {
  'use strict';
  var blocks = Array.prototype.slice.call(document.querySelectorAll('.prose pre > code.language-mermaid'));
  if (blocks.length === 0) return;

  // The Content-Security-Policy allows no inline <style> or style attribute; the CSS object model is allowed, so a
  // diagram's stylesheet becomes a constructed sheet and its style attributes are set property by property.
  function adoptStyles(svg) {
    var sheets = [];
    svg.querySelectorAll('style').forEach(function (style) {
      try {
        var sheet = new CSSStyleSheet();
        sheet.replaceSync(style.textContent || '');
        sheets.push(sheet);
      } catch (error) { /* an unreadable rule leaves the diagram unstyled, not broken */ }
      style.remove();
    });
    if (sheets.length) document.adoptedStyleSheets = document.adoptedStyleSheets.concat(sheets);
    var styled = [];
    svg.querySelectorAll('[style]').forEach(function (element) {
      styled.push([element, element.getAttribute('style') || '']);
      element.removeAttribute('style');
    });
    if (svg.hasAttribute('style')) { styled.push([svg, svg.getAttribute('style') || '']); svg.removeAttribute('style'); }
    return styled;
  }

  async function draw(mermaid) {
    // SVG text labels: HTML labels are measured with inline styles, which the policy refuses.
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', htmlLabels: false, flowchart: { htmlLabels: false } });
    for (var i = 0; i < blocks.length; i++) {
      var code = blocks[i];
      var pre = code.parentElement;
      try {
        var result = await mermaid.render('kurate-mermaid-' + i, code.textContent || '');
        var parsed = new DOMParser().parseFromString(result.svg, 'text/html').body.firstElementChild;
        if (!parsed || parsed.tagName.toLowerCase() !== 'svg') continue;
        var svg = document.importNode(parsed, true);
        var styled = adoptStyles(svg);
        var figure = document.createElement('div');
        figure.className = 'mermaid-diagram';
        figure.setAttribute('role', 'img');
        figure.setAttribute('aria-label', 'Diagram');
        figure.appendChild(svg);
        pre.hidden = true;
        pre.insertAdjacentElement('beforebegin', figure);
        styled.forEach(function (pair) { pair[0].style.cssText = pair[1]; });
      } catch (error) {
        pre.classList.add('mermaid-error');
        pre.title = 'This diagram could not be drawn: ' + (error && error.message ? error.message : String(error));
      }
    }
  }

  var script = document.createElement('script');
  script.src = '/static/vendor/mermaid/mermaid.min.js';
  script.onload = function () { if (window.mermaid) draw(window.mermaid); };
  document.head.appendChild(script);
})();
