import type { Compiler } from '../Compiler.js';
import type { OrchPlugin } from '../config/types.js';
import { evict } from './eviction.js';

/**
 * `cache: { maxSize }`: after a build that built something (a hit adds nothing), evict the
 * least recently used variants until the cache root fits, like ccache's -M. Not a stage and
 * not part of any key: it changes what the cache keeps, never what a build makes.
 */
export class CacheLimitPlugin implements OrchPlugin {
  readonly name = 'orch:cacheLimit';

  constructor(private readonly maxBytes: number) {}

  apply(compiler: Compiler): void {
    compiler.hooks.done.tapPromise(this.name, async (result) => {
      if (!result.entries.some((e) => e.status === 'built')) return;
      result.evicted = await evict(compiler.config.cacheRoot, { maxBytes: this.maxBytes });
    });
  }
}
