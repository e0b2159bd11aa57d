import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpWebhookSender } from '../../../src/infrastructure/webhooks/http-webhook-sender';

const message = (url: string) => ({
  url,
  messageId: 'msg_00000000000000000000000000000001',
  payload: '{"type":"webhook.ping"}',
  secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
});

/** A receiver on loopback answering each request as `answer` does. */
async function receiver(answer: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('HttpWebhookSender', () => {
  const sender = new HttpWebhookSender(1000);

  it('posts the signed JSON body and takes a 2xx as delivered, whatever the body of the answer', async () => {
    const seen: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const hook = await receiver((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    try {
      const result = await sender.send(message(hook.url));
      expect(result).toMatchObject({ statusCode: 204, error: null, retryAfterMs: null });
      expect(seen[0].body).toBe('{"type":"webhook.ping"}');
      expect(seen[0].headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'membership-directory-webhooks/1.0',
        'webhook-id': 'msg_00000000000000000000000000000001',
        'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
      });
    } finally {
      await hook.close();
    }
  });

  it('tells a receiver that closes the connection without answering', async () => {
    const hook = await receiver((req) => req.socket.destroy());
    try {
      expect(await sender.send(message(hook.url))).toMatchObject({
        statusCode: null,
        error: 'connection reset by the receiver',
      });
    } finally {
      await hook.close();
    }
  });

  it('refuses at once, in words, what it can never send', async () => {
    expect(await sender.send(message('not a url'))).toMatchObject({
      statusCode: null,
      error: 'the URL cannot be parsed',
    });
    // One of the Fetch standard's "bad ports": fetch never connects to it.
    expect(await sender.send(message('http://127.0.0.1:6000/hooks'))).toMatchObject({
      statusCode: null,
      error: 'port 6000 is one that fetch refuses to connect to',
    });
  });

  it('cancels a send when the service shuts down', async () => {
    const hook = await receiver(() => undefined);
    try {
      const stop = new AbortController();
      const sending = sender.send(message(hook.url), stop.signal);
      setTimeout(() => stop.abort(), 50);
      expect(await sending).toMatchObject({
        statusCode: null,
        error: 'cancelled: the service was shutting down',
      });
    } finally {
      await hook.close();
    }
  });
});
