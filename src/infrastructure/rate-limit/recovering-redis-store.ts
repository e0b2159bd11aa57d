import type { IncrementResponse } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';

/**
 * rate-limit-redis loads its Lua script once, when the limiter starts; if Redis was unreachable
 * then, the failed load stays cached and every later increment fails even after Redis is back.
 * This store loads the script again after a failed increment, so counting resumes by itself.
 */
export class RecoveringRedisStore extends RedisStore {
  override async increment(key: string): Promise<IncrementResponse> {
    try {
      return await super.increment(key);
    } catch (error) {
      const reload = this.loadIncrementScript();
      // Awaited by the next increment; until then a failure must not count as unhandled.
      reload.catch(() => undefined);
      this.incrementScriptSha = reload;
      throw error;
    }
  }
}
