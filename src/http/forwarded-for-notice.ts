import type { Request } from 'express';
import type { Logger } from 'pino';

/**
 * With TRUST_PROXY unset, a proxy's X-Forwarded-For is ignored, rightly (a client can write one
 * itself): every request then seems to come from the proxy, and one mistyped password locks
 * everybody out at once. Nothing fails that an operator would notice, so it is said in the log,
 * once per process: the first such request tells the setting to check; the rest cost one test.
 */
export function forwardedForNotice(logger: Logger): (req: Request) => void {
  let told = false;
  return (req) => {
    if (told || req.headers['x-forwarded-for'] === undefined) return;
    told = true;
    logger.warn(
      { event: 'proxy.untrusted', proxyAddress: req.socket.remoteAddress },
      'a request came with X-Forwarded-For but TRUST_PROXY is unset: client addresses (logs, sign-in ' +
        "lockouts) are the proxy's; set TRUST_PROXY to the number of proxies in front (e.g. 1) or their addresses",
    );
  };
}
