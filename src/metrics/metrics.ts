import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from a cached page view (sub-millisecond) to an LLM call or an import batch (a minute). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** One sample of a gauge a module reports when /metrics is read: its labels and its value. */
export interface GaugeSample {
  labels?: Record<string, string>;
  value: number;
}

export interface GaugeDefinition {
  name: string;
  help: string;
  labelNames?: string[];
  /** Read at each scrape (a count in the database, a pool's state); a failure leaves the gauge empty for that scrape. */
  collect: () => Promise<GaugeSample[]> | GaugeSample[];
}

/**
 * Kurate's metrics, in one prom-client registry per application (so that two apps in one process never share
 * series). The modules that own a measure record it here: HTTP (src/metrics/http-metrics.ts), the LLM backends
 * (src/llm/), extraction (src/kg/), search (src/search/); modules that own a count register a gauge read at each
 * scrape (`gauge()`: review queue, job queues, database pool). Rendered at /metrics (MetricsController).
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'kurate_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern (not the raw URL) and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'kurate_http_request_duration_seconds',
    help: 'Time from a request’s arrival to the end of its answer, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly llmCalls = new Counter({
    name: 'kurate_llm_calls_total',
    help: 'Calls to the extractor and embedder backends, by backend, operation (extract, embed) and outcome (ok, error).',
    labelNames: ['backend', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly llmErrors = new Counter({
    name: 'kurate_llm_errors_total',
    help: 'Failed calls to the extractor and embedder backends, by backend, operation and error kind (timeout, rate_limited, unavailable, …).',
    labelNames: ['backend', 'operation', 'kind'] as const,
    registers: [this.registry],
  });

  readonly llmDuration = new Histogram({
    name: 'kurate_llm_call_duration_seconds',
    help: 'Duration of calls to the extractor and embedder backends, by backend and operation.',
    labelNames: ['backend', 'operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly extractedPages = new Counter({
    name: 'kurate_extraction_pages_total',
    help: 'Pages whose extraction job finished, by outcome (extracted, failed); rate() gives pages per second.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly searchDuration = new Histogram({
    name: 'kurate_search_duration_seconds',
    help: 'Search latency by list: lexical (BM25 in PostgreSQL), vector (embedding the query and the nearest chunks), graph (the knowledge-graph signal), and total (the whole search).',
    labelNames: ['list'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    // Node's own: CPU, memory, event-loop lag, garbage collection (process_*, nodejs_*).
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge whose samples are read from `collect` at each scrape. */
  gauge(definition: GaugeDefinition): void {
    const { collect } = definition;
    new Gauge({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labelNames ?? [],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const sample of await collect()) {
          if (sample.labels) this.set(sample.labels, sample.value);
          else this.set(sample.value);
        }
      },
    });
  }

  /** Times `work` into `histogram` with these labels (also when it throws). */
  async time<T, L extends string>(histogram: Histogram<L>, labels: Partial<Record<L, string>>, work: () => Promise<T>): Promise<T> {
    const stop = histogram.startTimer(labels);
    try {
      return await work();
    } finally {
      stop();
    }
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
