// A small S3-compatible HTTP server for tests (path-style addressing: /<bucket>/<key>): PutObject and
// GetObject, in memory. It checks what a real store checks that a test can check without the secret
// key: a SigV4 Authorization header naming the expected access key id and region, and the signed
// payload hash (x-amz-content-sha256) against the body it received. Unknown keys answer S3's
// NoSuchKey error (404 with an XML body), other buckets NoSuchBucket.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeS3 {
  readonly url: string;
  /** Objects by `<bucket>/<key>`. */
  readonly objects: Map<string, Buffer>;
  /** Every request: method, path and headers. */
  readonly requests: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

function s3Error(res: ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`);
}

export async function startFakeS3(options: { bucket: string; accessKeyId: string; region: string }): Promise<FakeS3> {
  const objects = new Map<string, Buffer>();
  const requests: FakeS3['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://fake');
      const path = decodeURIComponent(url.pathname);
      requests.push({ method: req.method ?? '', path, headers: req.headers });
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith(`AWS4-HMAC-SHA256 Credential=${options.accessKeyId}/`) || !auth.includes(`/${options.region}/s3/aws4_request`)) {
        return s3Error(res, 403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
      }
      const [, bucket, ...rest] = path.split('/');
      const key = rest.join('/');
      if (bucket !== options.bucket) return s3Error(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
      if (!key) return s3Error(res, 400, 'InvalidRequest', 'no key');
      if (req.method === 'PUT') {
        const claimed = req.headers['x-amz-content-sha256'];
        if (claimed !== 'UNSIGNED-PAYLOAD' && claimed !== createHash('sha256').update(body).digest('hex')) {
          return s3Error(res, 400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.');
        }
        objects.set(`${bucket}/${key}`, body);
        res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
        return res.end();
      }
      if (req.method === 'GET') {
        const data = objects.get(`${bucket}/${key}`);
        if (!data) return s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(data.length) });
        return res.end(data);
      }
      return s3Error(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
