// Fastify gives each request a child logger bound to its request id. pino serializes and redacts a child's
// bindings when the child is made, which every request paid for though most log nothing: this one is made the
// first time the request logs.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #made: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #logger(): FastifyBaseLogger {
    return this.#made ??= this.#parent.child(this.#bindings, this.#options);
  }

  // pino's log methods read the logger from `this`.
  #call(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    const logger = this.#logger();
    (logger[level] as (...a: unknown[]) => void).apply(logger, args);
  }

  get level(): string { return this.#made?.level ?? this.#parent.level; }
  set level(level: string) { this.#logger().level = level; }
  fatal(...args: unknown[]): void { this.#call('fatal', args); }
  error(...args: unknown[]): void { this.#call('error', args); }
  warn(...args: unknown[]): void { this.#call('warn', args); }
  info(...args: unknown[]): void { this.#call('info', args); }
  debug(...args: unknown[]): void { this.#call('debug', args); }
  trace(...args: unknown[]): void { this.#call('trace', args); }
  // pino's `silent` writes nothing: no child is made for it.
  silent(): void { /* nothing to write */ }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger { return this.#logger().child(bindings, options); }
}

/** Fastify's `childLoggerFactory`. */
export function lazyRequestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options);
}
