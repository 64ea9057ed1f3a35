// Kurate: light enhancement of pages that work without JavaScript. No inline scripts or styles anywhere (strict CSP).
(function () {
  'use strict';

  var PREVIEW_DELAY_MS = 350;

  /** Live preview on the editor: the server renders and sanitises; we only place its HTML. */
  function setUpPreview() {
    var source = document.querySelector('[data-preview-source]');
    var output = document.querySelector('[data-preview-output]');
    if (!source || !output || !window.fetch) return;
    var timer = null;
    var sent = 0;
    var lastBody = null;

    function refresh() {
      var body = source.value;
      if (body === lastBody) return;
      lastBody = body;
      var ticket = ++sent;
      output.classList.add('is-stale');
      fetch('/api/preview', {
        method: 'POST',
        headers: previewHeaders(),
        credentials: 'same-origin',
        body: JSON.stringify({ body: body }),
      })
        .then(function (response) {
          return response.json().then(function (data) {
            return { ok: response.ok, status: response.status, data: data };
          });
        })
        .then(function (result) {
          // An older answer arriving late must not replace a newer one.
          if (ticket !== sent) return;
          output.classList.remove('is-stale');
          if (result.ok && typeof result.data.html === 'string') {
            output.innerHTML = result.data.html || '<p class="muted">Nothing to preview yet.</p>';
          } else if (result.status < 500 && result.data && result.data.message) {
            showMessage(output, result.data.message);
          } else {
            showMessage(output, 'The preview could not be rendered. Saving will say what is wrong, and keeps your text.');
          }
        })
        .catch(function () {
          if (ticket !== sent) return;
          output.classList.remove('is-stale');
          showMessage(output, 'The preview is unavailable right now; your text is unaffected.');
        });
    }

    source.addEventListener('input', function () {
      if (timer) clearTimeout(timer);
      timer = setTimeout(refresh, PREVIEW_DELAY_MS);
    });
    // The new-page form starts empty; a prefilled one (after an error) gets its preview at once.
    if (source.value.trim() !== '' && output.querySelector('.muted')) refresh();
  }

  /** JSON calls made with the session cookie carry the session's CSRF token (from the layout's meta tag). */
  function previewHeaders() {
    var headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta && meta.content) headers['X-CSRF-Token'] = meta.content;
    return headers;
  }

  function showMessage(output, text) {
    var p = document.createElement('p');
    p.className = 'muted';
    p.textContent = text;
    output.replaceChildren(p);
  }

  /** Forms marked data-confirm ask first. */
  function setUpConfirmations() {
    document.addEventListener('submit', function (event) {
      var form = event.target;
      if (!(form instanceof HTMLFormElement)) return;
      var question = form.getAttribute('data-confirm');
      if (question && !window.confirm(question)) event.preventDefault();
    });
  }

  /** A box marked data-check-all="form-id" ticks every checkbox that belongs to that form (form="form-id"). */
  function setUpCheckAll() {
    document.querySelectorAll('input[data-check-all]').forEach(function (all) {
      var formId = all.getAttribute('data-check-all');
      var boxes = Array.prototype.slice.call(document.querySelectorAll('input[type="checkbox"][form="' + formId + '"]'));
      all.addEventListener('change', function () {
        boxes.forEach(function (box) { box.checked = all.checked; });
      });
      boxes.forEach(function (box) {
        box.addEventListener('change', function () {
          var n = boxes.filter(function (b) { return b.checked; }).length;
          all.checked = n === boxes.length;
          all.indeterminate = n > 0 && n < boxes.length;
        });
      });
    });
  }

  /** Warn before leaving an editor with unsaved text. */
  function setUpUnsavedWarning() {
    var source = document.querySelector('textarea[name="body"]');
    if (!source) return;
    var initial = source.value;
    var submitting = false;
    if (source.form) source.form.addEventListener('submit', function () { submitting = true; });
    window.addEventListener('beforeunload', function (event) {
      if (!submitting && source.value !== initial) {
        event.preventDefault();
        event.returnValue = '';
      }
    });
  }

  // The page graph: at most GRAPH_CAP neighbours at first (the most linked), the rest behind "Show all"; labels kept at
  // LABEL_PX on screen whatever the zoom, shown where they do not collide (the centre first, then the most linked),
  // and on hover; colours by cluster.
  var GRAPH_CAP = 30;
  var LABEL_PX = 12;
  var CLUSTER_CLASSES = 10;

  /** The page-graph view: draws /api/pages/:slug/graph with cytoscape and fCoSE; the server-rendered list stays as the fallback. */
  function setUpGraph() {
    var container = document.querySelector('[data-graph-slug]');
    if (!container || typeof window.cytoscape !== 'function' || !window.fetch) return;
    var slug = container.getAttribute('data-graph-slug');
    var hops = container.getAttribute('data-graph-hops') === '2' ? 2 : 1;
    fetch('/api/pages/' + encodeURIComponent(slug) + '/graph?hops=' + hops, { headers: { Accept: 'application/json' } })
      .then(function (response) {
        if (!response.ok) throw new Error('graph ' + response.status);
        return response.json();
      })
      .then(function (graph) {
        if (!graph.nodes || graph.nodes.length < 2) return;
        drawGraph(container, graph);
      })
      .catch(function () {
        container.hidden = true;
      });
  }

  function drawGraph(container, graph) {
    var controls = document.querySelector('[data-page-graph-controls]');
    var filterBox = document.querySelector('[data-page-graph-filter]');
    var allButton = document.querySelector('[data-page-graph-all]');
    var countText = document.querySelector('[data-page-graph-count]');
    var legend = document.querySelector('[data-page-graph-legend]');
    container.hidden = false;
    if (controls) controls.hidden = false;
    // cytoscape injects a <style> element unless one with this id exists; a strict CSP forbids inline styles,
    // so a placeholder stands in and kurate.css carries the rule it would have added.
    if (!document.getElementById('__________cytoscape_stylesheet')) {
      var placeholder = document.createElement('meta');
      placeholder.id = '__________cytoscape_stylesheet';
      document.head.appendChild(placeholder);
    }
    var hasFcose = typeof window.cytoscapeFcose === 'function';
    if (hasFcose && !window.cytoscape.__kurateFcose) {
      window.cytoscape.use(window.cytoscapeFcose);
      window.cytoscape.__kurateFcose = true;
    }

    var degree = {};
    graph.edges.forEach(function (edge) {
      degree[edge.from] = (degree[edge.from] || 0) + 1;
      degree[edge.to] = (degree[edge.to] || 0) + 1;
    });
    // Clusters by size: the largest get the first colours; pages without a cluster stay grey.
    var clusterSizes = {};
    graph.nodes.forEach(function (node) {
      if (node.cluster) clusterSizes[node.cluster] = (clusterSizes[node.cluster] || 0) + 1;
    });
    var clusters = Object.keys(clusterSizes).sort(function (a, b) { return clusterSizes[b] - clusterSizes[a] || (a < b ? -1 : 1); });
    var clusterClass = {};
    clusters.forEach(function (name, i) { clusterClass[name] = i < CLUSTER_CLASSES ? 'cluster-c' + i : 'cluster-other'; });

    var elements = graph.nodes.map(function (node) {
      var centre = node.slug === graph.center;
      return {
        data: { id: node.slug, label: node.title, depth: node.depth, degree: degree[node.slug] || 0, cluster: node.cluster || '' },
        classes: [centre ? 'center' : 'depth-' + node.depth, node.cluster ? clusterClass[node.cluster] : 'cluster-none'].join(' '),
      };
    });
    graph.edges.forEach(function (edge, i) {
      var spoke = edge.from === graph.center || edge.to === graph.center;
      elements.push({ data: { id: 'e' + i, source: edge.from, target: edge.to }, classes: spoke ? 'spoke' : 'between' });
    });
    // The neighbours in the order they earn a place: nearer first, then the most linked, then by title.
    var others = graph.nodes.filter(function (n) { return n.slug !== graph.center; }).sort(function (a, b) {
      return a.depth - b.depth || (degree[b.slug] || 0) - (degree[a.slug] || 0) || a.title.localeCompare(b.title);
    });

    var cy = window.cytoscape({
      container: container,
      elements: elements,
      minZoom: 0.15,
      maxZoom: 3,
      // The style is first read inside this call, before `cy` is set: zoom 1 until then.
      style: graphStyle(function () { return cy ? cy.zoom() : 1; }),
      layout: { name: 'preset' },
    });
    // For the browser tests and the console: the graph as drawn.
    window.KuratePageGraph = { cy: cy };

    var showAll = false;
    var filterText = '';

    function shownNeighbours() {
      var matching = filterText === '' ? others : others.filter(function (n) { return n.title.toLowerCase().indexOf(filterText) >= 0; });
      return { list: showAll ? matching : matching.slice(0, GRAPH_CAP), matching: matching.length };
    }

    function describe(shown) {
      if (countText) {
        var what = filterText === '' ? others.length + ' linked pages' : shown.matching + ' of ' + others.length + ' linked pages match';
        countText.textContent = shown.list.length < shown.matching
          ? 'Showing ' + shown.list.length + ' of ' + what + ', the most linked first.'
          : 'Showing ' + (filterText === '' ? 'all ' + what : what) + '.';
      }
      if (allButton) {
        allButton.hidden = shown.matching <= GRAPH_CAP;
        allButton.textContent = showAll ? 'Show the ' + GRAPH_CAP + ' most linked' : 'Show all ' + shown.matching;
      }
    }

    function draw() {
      var shown = shownNeighbours();
      var keep = {};
      keep[graph.center] = true;
      shown.list.forEach(function (n) { keep[n.slug] = true; });
      cy.batch(function () {
        cy.nodes().forEach(function (node) { node.toggleClass('is-hidden', !keep[node.id()]); });
      });
      describe(shown);
      var visible = cy.elements().filter(function (el) { return !el.hasClass('is-hidden') && (el.isNode() || (!el.source().hasClass('is-hidden') && !el.target().hasClass('is-hidden'))); });
      cy.zoom(1);
      cy.style().update();
      var options = hasFcose
        ? {
            name: 'fcose', quality: 'proof', randomize: true, animate: false, fit: false, padding: 30,
            nodeDimensionsIncludeLabels: true, packComponents: true, nodeRepulsion: function () { return 9000; },
            idealEdgeLength: function (edge) { return edge.hasClass('spoke') ? 110 : 160; }, edgeElasticity: function (edge) { return edge.hasClass('spoke') ? 0.45 : 0.1; },
            nodeSeparation: 80, gravity: 0.25, numIter: 2500,
            fixedNodeConstraint: [{ nodeId: graph.center, position: { x: 0, y: 0 } }],
          }
        : { name: 'cose', animate: false, fit: false, padding: 30, nodeDimensionsIncludeLabels: true, nodeRepulsion: function () { return 12000; } };
      var layout = visible.layout(options);
      layout.one('layoutstop', function () {
        cy.fit(visible, 30);
        // A small neighbourhood would otherwise be zoomed in until its nodes are enormous.
        if (cy.zoom() > 1.4) {
          cy.zoom(1.4);
          cy.center(visible);
        }
        declutter();
        container.setAttribute('data-graph-ready', String(shown.list.length + 1));
      });
      layout.run();
    }

    /** Labels where they fit: every shown label is measured, then kept unless it would cover one kept before it. */
    function declutter() {
      cy.style().update();
      var shown = cy.nodes().filter(function (n) { return !n.hasClass('is-hidden'); });
      cy.batch(function () { shown.addClass('labelled'); });
      var order = shown.sort(function (a, b) {
        if (a.hasClass('center')) return -1;
        if (b.hasClass('center')) return 1;
        return a.data('depth') - b.data('depth') || b.data('degree') - a.data('degree');
      });
      var gap = 3 / cy.zoom();
      var kept = [];
      var drop = [];
      order.forEach(function (node) {
        var box = node.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
        var clash = kept.some(function (k) { return box.x1 < k.x2 + gap && k.x1 < box.x2 + gap && box.y1 < k.y2 + gap && k.y1 < box.y2 + gap; });
        if (clash && !node.hasClass('center')) drop.push(node);
        else kept.push(box);
      });
      cy.batch(function () { drop.forEach(function (node) { node.removeClass('labelled'); }); });
    }

    var zoomTimer = null;
    cy.on('zoom', function () {
      clearTimeout(zoomTimer);
      zoomTimer = setTimeout(declutter, 120);
    });
    cy.on('tap', 'node', function (event) {
      window.location.href = '/page/' + encodeURIComponent(event.target.id());
    });
    cy.on('mouseover', 'node', function (event) {
      event.target.addClass('hover');
      event.target.connectedEdges().addClass('lit');
      container.classList.add('is-pointing');
    });
    cy.on('mouseout', 'node', function (event) {
      event.target.removeClass('hover');
      event.target.connectedEdges().removeClass('lit');
      container.classList.remove('is-pointing');
    });

    if (filterBox) {
      var filterTimer = null;
      filterBox.addEventListener('input', function () {
        clearTimeout(filterTimer);
        filterTimer = setTimeout(function () {
          filterText = filterBox.value.trim().toLowerCase();
          draw();
        }, 200);
      });
    }
    if (allButton) {
      allButton.addEventListener('click', function () {
        showAll = !showAll;
        draw();
      });
    }
    if (legend && clusters.length > 0) {
      clusters.slice(0, CLUSTER_CLASSES).forEach(function (name) {
        var item = document.createElement('li');
        var swatch = document.createElement('span');
        swatch.className = 'swatch ' + clusterClass[name];
        item.appendChild(swatch);
        item.appendChild(document.createTextNode(name + ' (' + clusterSizes[name] + ')'));
        legend.appendChild(item);
      });
      if (clusters.length > CLUSTER_CLASSES) {
        var rest = document.createElement('li');
        var grey = document.createElement('span');
        grey.className = 'swatch cluster-other';
        rest.appendChild(grey);
        rest.appendChild(document.createTextNode((clusters.length - CLUSTER_CLASSES) + ' more clusters'));
        legend.appendChild(rest);
      }
      legend.hidden = false;
    }
    draw();
  }

  /** The colours of CLUSTER_CLASSES clusters; kurate.css gives the legend's swatches the same ones. */
  var CLUSTER_COLOURS = ['#1971c2', '#2b8a3e', '#d9480f', '#7048e8', '#c2255c', '#0c8599', '#e67700', '#5c940d', '#862e9c', '#a61e1e'];

  function graphStyle(zoom) {
    var styles = [
      {
        selector: 'node',
        style: {
          label: '',
          'font-family': 'system-ui, sans-serif',
          // Model units shrink as the view zooms in: the label keeps LABEL_PX on screen, and more of them fit.
          'font-size': function () { return LABEL_PX / zoom(); },
          'text-max-width': function () { return 150 / zoom(); },
          'text-margin-y': function () { return 3 / zoom(); },
          color: '#1f2328',
          'text-valign': 'bottom',
          'text-wrap': 'ellipsis',
          'text-background-color': '#ffffff',
          'text-background-opacity': 0.75,
          'text-background-padding': function () { return 1 / zoom(); },
          'background-color': '#8c96a0',
          width: 14,
          height: 14,
        },
      },
      { selector: 'node.depth-2', style: { width: 10, height: 10, opacity: 0.85 } },
      { selector: 'node.center', style: { width: 26, height: 26, 'font-weight': 'bold', 'border-width': 3, 'border-color': '#1f2328' } },
      { selector: 'node.labelled', style: { label: 'data(label)' } },
      { selector: 'node.hover', style: { label: 'data(label)', 'font-weight': 'bold', 'z-index': 10, 'text-background-opacity': 0.95 } },
      { selector: 'node:active, node:selected', style: { 'overlay-opacity': 0.15 } },
      { selector: 'edge', style: { width: 1, 'line-color': '#c4cad0', 'curve-style': 'straight', opacity: 0.45 } },
      { selector: 'edge.spoke', style: { width: 1.5, 'line-color': '#9aa6b2', opacity: 0.8, 'target-arrow-shape': 'triangle', 'target-arrow-color': '#9aa6b2', 'arrow-scale': 0.7 } },
      { selector: 'edge.lit', style: { 'line-color': '#0b5cad', 'target-arrow-color': '#0b5cad', opacity: 1, width: 2, 'z-index': 9 } },
      { selector: '.is-hidden', style: { display: 'none' } },
      { selector: 'node.cluster-other', style: { 'background-color': '#495057' } },
    ];
    CLUSTER_COLOURS.forEach(function (colour, i) {
      styles.push({ selector: 'node.cluster-c' + i, style: { 'background-color': colour } });
    });
    return styles;
  }

  /** The header search box suggests page titles as the reader types (a <datalist> filled from the API). */
  function setUpTitleSuggestions() {
    var input = document.getElementById('site-search');
    if (!input || !window.fetch) return;
    var list = document.createElement('datalist');
    list.id = 'site-search-titles';
    input.parentNode.appendChild(list);
    input.setAttribute('list', list.id);
    input.setAttribute('autocomplete', 'off');
    var timer = null;
    var sent = 0;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var text = input.value.trim();
        var ticket = ++sent;
        if (!text) {
          list.textContent = '';
          return;
        }
        fetch('/api/search/suggest?' + new URLSearchParams({ q: text }), { credentials: 'same-origin' })
          .then(function (response) {
            return response.ok ? response.json() : { suggestions: [] };
          })
          .then(function (data) {
            if (ticket !== sent) return;
            list.textContent = '';
            data.suggestions.forEach(function (suggestion) {
              var option = document.createElement('option');
              option.value = suggestion.title;
              list.appendChild(option);
            });
          })
          .catch(function () {});
      }, 150);
    });
  }

  /**
   * Files dropped on the editor's text (or chosen in its file field) are uploaded at once (POST /api/attachments)
   * and their embed is inserted where the cursor is. Without JavaScript the form's "Upload and insert" button does
   * the same with a round trip.
   */
  function setUpAttachments() {
    var box = document.querySelector('[data-attach]');
    var source = document.querySelector('[data-preview-source]');
    if (!box || !source || !window.fetch || !window.FormData) return;
    var input = box.querySelector('[data-attach-input]');
    var status = box.querySelector('[data-attach-status]');

    function say(text, isError) {
      if (!status) return;
      status.textContent = text;
      status.classList.toggle('is-error', Boolean(isError));
    }

    function insert(snippet) {
      var start = source.selectionStart;
      var end = source.selectionEnd;
      var before = source.value.slice(0, start);
      var text = (before && !/\n$/.test(before) ? '\n' : '') + snippet + '\n';
      source.setRangeText(text, start, end, 'end');
      source.dispatchEvent(new Event('input', { bubbles: true }));
    }

    function upload(file) {
      var body = new FormData();
      body.append('file', file, file.name);
      body.append('onConflict', 'rename');
      var headers = { Accept: 'application/json' };
      var token = document.querySelector('meta[name="csrf-token"]');
      if (token && token.content) headers['X-CSRF-Token'] = token.content;
      say('Uploading ' + file.name + '…');
      return fetch('/api/attachments', { method: 'POST', headers: headers, credentials: 'same-origin', body: body })
        .then(function (response) {
          return response.json().then(function (data) {
            return { ok: response.ok, data: data };
          });
        })
        .then(function (result) {
          if (result.ok && result.data.embed) {
            insert(result.data.embed);
            say('Uploaded ' + result.data.path + ' and inserted ' + result.data.embed + '. Save the page to keep it.');
          } else {
            say((result.data && result.data.message) || 'The upload failed.', true);
          }
        })
        .catch(function () {
          say('The upload failed: the server could not be reached. Your text is unaffected.', true);
        });
    }

    function uploadAll(files) {
      var chain = Promise.resolve();
      Array.prototype.forEach.call(files, function (file) {
        chain = chain.then(function () {
          return upload(file);
        });
      });
      return chain;
    }

    source.addEventListener('dragover', function (event) {
      if (!event.dataTransfer || Array.prototype.indexOf.call(event.dataTransfer.types, 'Files') < 0) return;
      event.preventDefault();
      source.classList.add('is-drop-target');
    });
    source.addEventListener('dragleave', function () {
      source.classList.remove('is-drop-target');
    });
    source.addEventListener('drop', function (event) {
      source.classList.remove('is-drop-target');
      if (!event.dataTransfer || event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      uploadAll(event.dataTransfer.files);
    });
    if (input) {
      input.addEventListener('change', function () {
        var files = input.files;
        if (!files || files.length === 0) return;
        uploadAll(files).then(function () {
          input.value = '';
        });
      });
    }
  }

  function start() {
    setUpPreview();
    setUpAttachments();
    setUpConfirmations();
    setUpCheckAll();
    setUpUnsavedWarning();
    setUpGraph();
    setUpTitleSuggestions();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
