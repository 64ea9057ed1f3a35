// Knowledge-graph review and curation (/admin/knowledge-graph): keyboard review of the queue, bulk selection, the
// entity neighbourhood graph (cytoscape), and reading an import file. Every page works without it: these are
// shortcuts over plain forms and links. No inline script or style anywhere (strict CSP).
(function () {
  'use strict';

  var TYPE_COLOURS = {
    person: '#c92a2a', organization: '#7048e8', place: '#2b8a3e', event: '#d9480f', product: '#1971c2',
    technology: '#0c8599', concept: '#5c6570', project: '#a61e4d', document: '#5c940d', other: '#343a40',
  };

  function isTyping(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    return tag === 'input' || tag === 'textarea' || tag === 'select' || target.isContentEditable;
  }

  function submit(form) {
    if (!form) return;
    if (typeof form.requestSubmit === 'function') form.requestSubmit();
    else form.submit();
  }

  /** j/k move between proposals, a approves, r opens the reject reason, e opens the edit form, x selects, Esc closes. */
  function setUpKeyboardReview() {
    var queue = document.querySelector('[data-review-queue]');
    if (!queue) return;
    var cards = Array.prototype.slice.call(queue.querySelectorAll('.kg-card'));
    if (cards.length === 0) return;
    var current = -1;

    function select(index, scroll) {
      if (index < 0 || index >= cards.length) return;
      if (current >= 0 && cards[current]) cards[current].classList.remove('is-current');
      current = index;
      var card = cards[current];
      card.classList.add('is-current');
      if (scroll !== false) {
        card.focus({ preventScroll: true });
        card.scrollIntoView({ block: 'nearest' });
      }
    }

    function openPanel(name) {
      var card = cards[current];
      if (!card) return;
      var panel = card.querySelector('details[data-action="' + name + '"]');
      if (!panel) return;
      panel.open = true;
      var field = panel.querySelector('input[type="text"], select, textarea');
      if (field) {
        field.focus();
        if (typeof field.select === 'function' && field.tagName.toLowerCase() === 'input') field.select();
      }
    }

    // Keeping one's place: before a card's form is sent (approve, reject, edit, merge), remember where the card sat in
    // the list and in the window. The queue comes back with the next proposal (data-focus); it becomes the current
    // card at the same height in the window, so the eyes and the keys stay where they were.
    var PLACE_KEY = 'kurate.review.place';
    queue.addEventListener('submit', function (event) {
      var card = event.target.closest && event.target.closest('.kg-card');
      if (!card) return;
      try {
        window.sessionStorage.setItem(PLACE_KEY, JSON.stringify({
          path: window.location.pathname, index: cards.indexOf(card), top: card.getBoundingClientRect().top,
        }));
      } catch (e) { /* no storage (private mode): the card is still selected, only the scroll is not kept */ }
    });

    function takePlace() {
      try {
        var raw = window.sessionStorage.getItem(PLACE_KEY);
        window.sessionStorage.removeItem(PLACE_KEY);
        var place = raw ? JSON.parse(raw) : null;
        return place && place.path === window.location.pathname ? place : null;
      } catch (e) {
        return null;
      }
    }

    var focusId = queue.getAttribute('data-focus');
    var place = focusId ? takePlace() : null;
    var start = -1;
    if (focusId) {
      cards.forEach(function (card, i) {
        if (card.getAttribute('data-proposal') === focusId) start = i;
      });
    }
    // The next proposal went too (an edge approves its endpoints): the card now at the same position instead.
    if (start < 0 && place && typeof place.index === 'number') start = Math.max(0, Math.min(place.index, cards.length - 1));
    if (start < 0) start = 0;
    if (place && typeof place.top === 'number') {
      select(start, false);
      cards[start].focus({ preventScroll: true });
      var keepHeight = function () {
        var drift = cards[start].getBoundingClientRect().top - place.top;
        if (Math.abs(drift) > 1) window.scrollTo({ top: window.scrollY + drift, behavior: 'instant' });
      };
      keepHeight();
      // Once more when everything has loaded, should anything above the card have changed height meanwhile.
      if (document.readyState !== 'complete') window.addEventListener('load', keepHeight, { once: true });
    } else {
      select(start, Boolean(focusId));
    }

    cards.forEach(function (card, i) {
      card.addEventListener('click', function () {
        if (current !== i) select(i, false);
      });
    });

    document.addEventListener('keydown', function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === 'Escape') {
        var card = cards[current];
        if (!card) return;
        card.querySelectorAll('details[open]').forEach(function (d) { d.open = false; });
        select(current);
        return;
      }
      if (isTyping(event.target)) return;
      switch (event.key) {
        case 'j':
          select(Math.min(current + 1, cards.length - 1));
          break;
        case 'k':
          select(Math.max(current - 1, 0));
          break;
        case 'a':
          submit(cards[current] && cards[current].querySelector('form[data-action="approve"]'));
          break;
        case 'r':
          openPanel('reject');
          break;
        case 'e':
          openPanel('edit');
          break;
        case 'x': {
          var box = cards[current] && cards[current].querySelector('.kg-select');
          if (box) {
            box.checked = !box.checked;
            box.dispatchEvent(new Event('change', { bubbles: true }));
          }
          break;
        }
        default:
          return;
      }
      event.preventDefault();
    });
  }

  /** "All on this page" and the count of selected proposals for the bulk form. */
  function setUpBulkSelection() {
    var all = document.querySelector('[data-select-all]');
    var count = document.querySelector('[data-selected-count]');
    var boxes = Array.prototype.slice.call(document.querySelectorAll('.kg-select'));
    if (boxes.length === 0) return;
    function update() {
      var n = boxes.filter(function (b) { return b.checked; }).length;
      if (count) count.textContent = String(n);
      if (all) {
        all.checked = n === boxes.length;
        all.indeterminate = n > 0 && n < boxes.length;
      }
    }
    boxes.forEach(function (b) { b.addEventListener('change', update); });
    if (all) {
      all.addEventListener('change', function () {
        boxes.forEach(function (b) { b.checked = all.checked; });
        update();
      });
    }
    update();
  }

  /** The entity's neighbourhood: nodes coloured by type, typed edges labelled, co-mentions dashed; click to go there. */
  function setUpGraph() {
    var container = document.querySelector('[data-kg-graph]');
    if (!container || typeof window.cytoscape !== 'function' || !window.fetch) return;
    fetch(container.getAttribute('data-kg-graph'), { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok) throw new Error('graph ' + response.status);
        return response.json();
      })
      .then(function (graph) {
        if (!graph.nodes || graph.nodes.length < 2) return;
        container.hidden = false;
        // cytoscape injects a <style> element unless one with this id exists; a strict CSP forbids inline styles,
        // so a placeholder stands in and review.css positions the container.
        if (!document.getElementById('__________cytoscape_stylesheet')) {
          var placeholder = document.createElement('meta');
          placeholder.id = '__________cytoscape_stylesheet';
          document.head.appendChild(placeholder);
        }
        var elements = graph.nodes.map(function (node) {
          return {
            data: { id: node.id, label: node.name, colour: TYPE_COLOURS[node.type] || TYPE_COLOURS.other },
            classes: node.center ? 'center' : '',
          };
        });
        graph.edges.forEach(function (edge) {
          elements.push({
            data: { id: 'e' + edge.id, source: edge.source, target: edge.target, predicate: edge.predicate, kind: edge.kind,
                    label: edge.kind === 'typed' ? edge.predicate.replace(/_/g, ' ') : '' },
            classes: edge.kind,
          });
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
                label: 'data(label)', 'background-color': 'data(colour)', color: '#1f2328',
                'font-family': 'system-ui, sans-serif', 'font-size': 12, 'text-valign': 'bottom', 'text-margin-y': 4,
                'text-wrap': 'ellipsis', 'text-max-width': 140, width: 18, height: 18,
              },
            },
            { selector: 'node.center', style: { width: 30, height: 30, 'font-weight': 'bold', 'font-size': 14, 'border-width': 3, 'border-color': '#1f2328' } },
            {
              selector: 'edge',
              style: {
                width: 1.5, 'line-color': '#8c96a0', 'target-arrow-color': '#8c96a0', 'target-arrow-shape': 'triangle',
                'curve-style': 'bezier', 'arrow-scale': 0.8, label: 'data(label)', 'font-size': 10, color: '#5c6570',
                'text-rotation': 'autorotate', 'text-background-color': '#ffffff', 'text-background-opacity': 0.8,
              },
            },
            { selector: 'edge.co_mention', style: { 'line-style': 'dashed', 'line-color': '#c4cad0', 'target-arrow-shape': 'none' } },
            { selector: '.is-hidden', style: { display: 'none' } },
          ],
          layout: { name: 'cose', animate: false, padding: 30, nodeRepulsion: function () { return 9000; }, idealEdgeLength: function () { return 90; } },
        });
        if (cy.zoom() > 1.4) {
          cy.zoom(1.4);
          cy.center();
        }
        cy.on('tap', 'node', function (event) {
          if (event.target.hasClass('center')) return;
          window.location.href = '/admin/knowledge-graph/ui/entities/' + encodeURIComponent(event.target.id());
        });
        cy.on('mouseover', 'node', function () { container.classList.add('is-pointing'); });
        cy.on('mouseout', 'node', function () { container.classList.remove('is-pointing'); });

        var filter = document.querySelector('[data-graph-filter]');
        if (filter) {
          filter.addEventListener('change', function () {
            var value = filter.value;
            cy.batch(function () {
              cy.edges().forEach(function (edge) {
                var shown = value === '' || edge.data('kind') === value || edge.data('predicate') === value;
                edge.toggleClass('is-hidden', !shown);
              });
              cy.nodes().forEach(function (node) {
                var connected = node.connectedEdges().filter(function (e) { return !e.hasClass('is-hidden'); }).length > 0;
                node.toggleClass('is-hidden', !node.hasClass('center') && !connected);
              });
            });
          });
        }
        container.setAttribute('data-graph-ready', String(graph.nodes.length));
      })
      .catch(function () {
        container.hidden = true;
      });
  }

  /** An import file chosen is read into the text box (the server only ever sees the JSON text). */
  function setUpImportFile() {
    var input = document.querySelector('[data-import-file]');
    var target = document.querySelector('[data-import-target]');
    if (!input || !target || !window.FileReader) return;
    input.addEventListener('change', function () {
      var file = input.files && input.files[0];
      if (!file) return;
      var reader = new FileReader();
      reader.onload = function () { target.value = String(reader.result); };
      reader.readAsText(file);
    });
  }

  function start() {
    setUpKeyboardReview();
    setUpBulkSelection();
    setUpGraph();
    setUpImportFile();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
