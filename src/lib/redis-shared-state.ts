// SharedState on Redis (REDIS_URL): each check-and-take is one Lua script on Redis's own clock
// (TIME), atomic across instances that need not agree on the time. Every command is bounded; while
// Redis does not answer, the instance falls back to per-instance limits (LocalSharedState).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  LocalSharedState,
  type NoticeHandler,
  PLACES_FREED,
  type SharedMode,
  type SharedState,
  type SlotAnswer,
} from './shared-state.ts';

const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS[1] bucket; ARGV perSecond, burst. Answers 0 (taken) or the wait in ms. */
const TAKE_TOKEN = `${NOW_MS}
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local wait = 0
if tokens < 1 then
  wait = math.max(1, math.ceil((1 - tokens) * 1000 / rate))
else
  tokens = tokens - 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return wait`;

/**
 * KEYS[1] window (slot ids scored by when they leave), KEYS[2] blocked-until; ARGV max, windowMs, id,
 * leaseMs. Answers {1, count} or {0, waitMs, count}.
 */
const RESERVE_SLOT = `${NOW_MS}
local max = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local lease = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local count = redis.call('ZCARD', KEYS[1])
local blocked = tonumber(redis.call('GET', KEYS[2]) or '0')
if blocked > now then return {0, blocked - now, count} end
if count < max then
  redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], lease + windowMs)
  return {1, count + 1}
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = tonumber(first[2]) - now
if wait > windowMs then wait = 50 end
return {0, math.max(1, wait), count}`;

/** KEYS[1] blocked-until; ARGV ms. */
const BLOCK = `${NOW_MS}
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > current then redis.call('SET', KEYS[1], tostring(untilMs), 'PX', tonumber(ARGV[1])) end
return 1`;

/** KEYS[1] places (member = holder, score = lease end); ARGV max, leaseMs, id. Answers 1 or 0. */
const ACQUIRE_PLACE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1`;

/** KEYS[1] places; ARGV id, channel, key: frees the place and wakes the instances waiting for one. */
const RELEASE_PLACE = `if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
return 1`;

/** KEYS[1] a window or a place set; ARGV leaseMs, ids: each id still there (XX) is kept one lease from now. */
const RENEW = `${NOW_MS}
local lease = tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + lease, ARGV[i]) end
if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
return 1`;

const SCRIPTS = {
  take: TAKE_TOKEN,
  reserve: RESERVE_SLOT,
  block: BLOCK,
  acquire: ACQUIRE_PLACE,
  release: RELEASE_PLACE,
  renew: RENEW,
};

const PREFIX = 'crm-proxy:';
/** A call in flight keeps its pacing slot this long without renewal (a killed instance's slots free up soon). */
const SLOT_LEASE_MS = 10_000;

export interface RedisSharedStateOptions {
  url: string;
  commandTimeoutMs: number;
  now: () => number;
  log: { info(msg: string): void; warn(msg: string): void };
}

export class RedisSharedState implements SharedState {
  readonly #client: Redis;
  readonly #subscriber: Redis;
  readonly #local: LocalSharedState;
  readonly #log: RedisSharedStateOptions['log'];
  readonly #now: () => number;
  /** Slots and places held here, renewed every third of the shortest lease: a dead instance's share frees soon. */
  readonly #held = new Map<string, { leaseMs: number; ids: Set<string> }>();
  #renewal: NodeJS.Timeout | undefined;
  #renewalMs = Number.POSITIVE_INFINITY;
  readonly #instance = randomBytes(6).toString('hex');
  readonly #timeoutMs: number;
  #ids = 0;
  /** Whether Redis answered last; null before the first command or connection event. */
  #healthy: boolean | null = null;
  /** After a failure, Redis is left alone until this instant (no request waits on a dead Redis). */
  #downUntil = 0;
  #subscribed = new Set<string>();
  #closed = false;

  constructor(options: RedisSharedStateOptions) {
    this.#local = new LocalSharedState(options.now);
    this.#log = options.log;
    this.#now = options.now;
    this.#timeoutMs = options.commandTimeoutMs;
    const common = {
      // Fail at once while disconnected (the caller falls back) instead of queueing the command.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      // #bounded bounds each call; this only keeps a command from hanging forever.
      commandTimeout: Math.max(5000, this.#timeoutMs * 4),
      // Reconnect forever, at most every 2 s.
      retryStrategy: (times: number) => Math.min(100 * times, 2000),
    };
    this.#client = new Redis(options.url, { ...common, keyPrefix: PREFIX });
    this.#subscriber = new Redis(options.url, {
      ...common,
      autoResubscribe: false,
      commandTimeout: undefined,
    });
    for (const [name, lua] of Object.entries(SCRIPTS))
      this.#client.defineCommand(`crmp_${name}`, { lua, numberOfKeys: name === 'reserve' ? 2 : 1 });
    this.#client.on('ready', () => this.#up());
    this.#client.on('error', () => {}); // state changes are logged by #down/#up
    this.#client.on('close', () => this.#down());
    this.#subscriber.on('error', () => {});
    this.#subscriber.on('ready', () => {
      // Notices sent while this instance was not listening are lost: tell every handler so.
      this.#local.deliver(null, null);
      const channels = [...this.#subscribed].map((c) => PREFIX + c);
      if (channels.length > 0) this.#subscriber.subscribe(...channels).catch(() => {});
    });
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel.startsWith(PREFIX)) this.#local.deliver(channel.slice(PREFIX.length), message);
    });
  }

  mode(): SharedMode {
    return this.#healthy === true ? 'shared' : 'degraded';
  }

  takeToken(key: string, perSecond: number, burst: number): Promise<number> {
    return this.#attempt(
      async () => Number(await this.#script('take', `rl:${key}`, perSecond, burst)),
      () => this.#local.takeToken(key, perSecond, burst),
    );
  }

  reserveSlot(key: string, max: number, windowMs: number): Promise<SlotAnswer> {
    const id = `${this.#instance}:${++this.#ids}`;
    return this.#attempt(
      async (): Promise<SlotAnswer> => {
        const answer = (await this.#script(
          'reserve',
          `win:${key}`,
          `block:${key}`,
          max,
          windowMs,
          id,
          SLOT_LEASE_MS,
        )) as number[];
        if (answer[0] !== 1) return { ok: false, waitMs: Number(answer[1]), count: Number(answer[2]) };
        this.#hold(`win:${key}`, id, SLOT_LEASE_MS);
        return { ok: true, id, count: Number(answer[1]) };
      },
      () => ({ ok: true, id, count: 0 }),
    );
  }

  async finishSlot(key: string, id: string, windowMs: number): Promise<void> {
    this.#drop(`win:${key}`, id);
    // The slot leaves one window from now.
    await this.#try(() => this.#script('renew', `win:${key}`, windowMs, id));
  }

  async block(key: string, ms: number): Promise<void> {
    await this.#try(() => this.#script('block', `block:${key}`, Math.max(1, Math.ceil(ms))));
  }

  acquirePlace(key: string, max: number, leaseMs: number): Promise<string | null> {
    const id = `${this.#instance}:${++this.#ids}`;
    return this.#attempt(
      async () => {
        if ((await this.#script('acquire', `place:${key}`, max, leaseMs, id)) !== 1) return null;
        this.#hold(`place:${key}`, id, leaseMs);
        return id;
      },
      () => id,
    );
  }

  async releasePlace(key: string, id: string): Promise<void> {
    this.#drop(`place:${key}`, id);
    await this.#try(() => this.#script('release', `place:${key}`, id, PREFIX + PLACES_FREED, key));
  }

  async bump(key: string): Promise<void> {
    await this.#try(() => this.#client.incr(`counter:${key}`));
  }

  counter(key: string): Promise<string> {
    return this.#attempt(
      async () => `r${(await this.#client.get(`counter:${key}`)) ?? '0'}`,
      () => 'down',
    );
  }

  async publish(channel: string, message: string): Promise<void> {
    // Others hear it through Redis; while it is down, their caches expire on their own.
    this.#local.deliver(channel, message);
    await this.#try(() => this.#client.publish(PREFIX + channel, message));
  }

  subscribe(channel: string, handler: NoticeHandler): void {
    this.#local.subscribe(channel, handler);
    if (this.#subscribed.has(channel)) return;
    this.#subscribed.add(channel);
    if (this.#subscriber.status === 'ready') this.#subscriber.subscribe(PREFIX + channel).catch(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopRenewal();
    this.#client.disconnect();
    this.#subscriber.disconnect();
  }

  #hold(key: string, id: string, leaseMs: number): void {
    const held = this.#held.get(key) ?? { leaseMs, ids: new Set<string>() };
    this.#held.set(key, held);
    held.ids.add(id);
    const periodMs = Math.max(100, Math.floor(leaseMs / 3));
    if (periodMs >= this.#renewalMs) return;
    clearInterval(this.#renewal);
    this.#renewalMs = periodMs;
    this.#renewal = setInterval(() => void this.#renewAll(), periodMs).unref();
  }

  #drop(key: string, id: string): void {
    const held = this.#held.get(key);
    if (held?.ids.delete(id) && held.ids.size === 0) this.#held.delete(key);
  }

  #stopRenewal(): void {
    clearInterval(this.#renewal);
    this.#renewal = undefined;
    this.#renewalMs = Number.POSITIVE_INFINITY;
    this.#held.clear();
  }

  async #renewAll(): Promise<void> {
    if (this.#held.size === 0) return this.#stopRenewal();
    await Promise.all(
      [...this.#held].map(([key, { leaseMs, ids }]) =>
        this.#try(() => this.#script('renew', key, leaseMs, ...ids)),
      ),
    );
  }

  #script(name: keyof typeof SCRIPTS, ...args: Array<string | number>): Promise<unknown> {
    const commands = this.#client as unknown as Record<string, (...a: typeof args) => Promise<unknown>>;
    return commands[`crmp_${name}`]!.apply(this.#client, args);
  }

  /** Runs `work` on Redis; while Redis is down, nothing happens. */
  #try(work: () => Promise<unknown>): Promise<unknown> {
    return this.#attempt(work, () => undefined);
  }

  /** Runs `shared` on Redis, or `fallback` while Redis is down or when it fails or does not answer in time. */
  async #attempt<T>(shared: () => Promise<T>, fallback: () => T): Promise<T> {
    if (this.#client.status !== 'ready' || this.#now() < this.#downUntil) return fallback();
    try {
      const value = await this.#bounded(shared());
      this.#up();
      return value;
    } catch {
      this.#downUntil = this.#now() + 1000;
      this.#down();
      return fallback();
    }
  }

  /** Rejects `#timeoutMs` after `work` started, in the check phase: an answer a busy loop has read still counts. */
  #bounded<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => setImmediate(() => reject(new Error('redis command timed out'))),
        this.#timeoutMs,
      );
    });
    return Promise.race([work, late]).finally(() => clearTimeout(timer));
  }

  #up(): void {
    if (this.#healthy === true || this.#closed) return;
    this.#healthy = true;
    this.#downUntil = 0;
    this.#log.info('redis: connected; rate limits, pacing and notices are shared across instances');
  }

  #down(): void {
    if (this.#healthy === false || this.#closed) return;
    this.#healthy = false;
    this.#log.warn('redis: degraded, using per-instance limits until it answers again');
  }
}
