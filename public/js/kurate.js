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

  /** The page-graph view: draws /api/pages/:slug/graph with cytoscape; the server-rendered list stays as the fallback. */
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
        container.hidden = false;
        // cytoscape injects a <style> element unless one with this id exists; a strict CSP forbids inline styles,
        // so a placeholder stands in and kurate.css carries the rule it would have added.
        if (!document.getElementById('__________cytoscape_stylesheet')) {
          var placeholder = document.createElement('meta');
          placeholder.id = '__________cytoscape_stylesheet';
          document.head.appendChild(placeholder);
        }
        var elements = graph.nodes.map(function (node) {
          return {
            data: { id: node.slug, label: node.title, depth: node.depth },
            classes: node.slug === graph.center ? 'center' : 'depth-' + node.depth,
          };
        });
        graph.edges.forEach(function (edge, i) {
          elements.push({ data: { id: 'e' + i, source: edge.from, target: edge.to } });
        });
        var cy = window.cytoscape({
          container: container,
          elements: elements,
          minZoom: 0.2,
          maxZoom: 2.5,
          style: [
            {
              selector: 'node',
              style: {
                label: 'data(label)',
                'font-family': 'system-ui, sans-serif',
                'font-size': 12,
                color: '#1f2328',
                'text-valign': 'bottom',
                'text-margin-y': 4,
                'text-wrap': 'ellipsis',
                'text-max-width': 140,
                'background-color': '#7aa7d6',
                width: 16,
                height: 16,
              },
            },
            { selector: 'node.center', style: { 'background-color': '#0b5cad', width: 26, height: 26, 'font-weight': 'bold', 'font-size': 14 } },
            // Two-hop pages are labelled on hover only; the ring of direct links stays labelled.
            { selector: 'node.depth-2', style: { 'background-color': '#b8c0c8', label: '', width: 12, height: 12 } },
            { selector: 'node:active, node:selected', style: { 'overlay-opacity': 0.15 } },
            { selector: 'node.hover', style: { label: 'data(label)', 'font-weight': 'bold', 'z-index': 10, 'text-background-color': '#ffffff', 'text-background-opacity': 0.85, 'text-background-padding': 2 } },
            {
              selector: 'edge',
              style: {
                width: 1.5,
                'line-color': '#b8c0c8',
                'target-arrow-color': '#b8c0c8',
                'target-arrow-shape': 'triangle',
                'curve-style': 'bezier',
                'arrow-scale': 0.8,
              },
            },
          ],
          // Rings by distance: the page in the middle, direct links around it, two-hop pages outside.
          layout: {
            name: 'concentric',
            animate: false,
            padding: 30,
            avoidOverlap: true,
            minNodeSpacing: 14,
            concentric: function (node) { return 3 - node.data('depth'); },
            levelWidth: function () { return 1; },
          },
        });
        // A small neighbourhood would otherwise be zoomed in until its labels are enormous.
        if (cy.zoom() > 1.25) {
          cy.zoom(1.25);
          cy.center();
        }
        cy.on('tap', 'node', function (event) {
          window.location.href = '/page/' + encodeURIComponent(event.target.id());
        });
        cy.on('mouseover', 'node', function (event) {
          event.target.addClass('hover');
          container.classList.add('is-pointing');
        });
        cy.on('mouseout', 'node', function (event) {
          event.target.removeClass('hover');
          container.classList.remove('is-pointing');
        });
      })
      .catch(function () {
        container.hidden = true;
      });
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
    setUpUnsavedWarning();
    setUpGraph();
    setUpTitleSuggestions();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
