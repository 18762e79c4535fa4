import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn } from 'pino';

/**
 * A request's logger that makes its pino child (with the request id bound) the first time the
 * request logs. Nearly every request logs nothing, and a child per request (its bindings
 * serialized, its level set) was a measurable part of a cached read's cost under load.
 */
class LazyChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child, made on first use. */
  logger(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  // On the prototype (below), so a request that logs nothing allocates no functions.
  declare readonly fatal: LogFn;
  declare readonly error: LogFn;
  declare readonly warn: LogFn;
  declare readonly info: LogFn;
  declare readonly debug: LogFn;
  declare readonly trace: LogFn;
  declare readonly silent: LogFn;

  get level(): LevelWithSilentOrString {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

for (const method of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
  Object.defineProperty(LazyChildLogger.prototype, method, {
    // LogFn is overloaded; every overload is passed through unchanged.
    value: function (this: LazyChildLogger, ...args: unknown[]) {
      const log = this.logger();
      (log[method] as (...a: unknown[]) => void).apply(log, args);
    },
  });
}

/** Fastify's `childLoggerFactory`: each request's logger is made only when it logs. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}
