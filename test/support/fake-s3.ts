import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AwsV4Signer } from 'aws4fetch';

/**
 * A small S3-compatible server on loopback for the S3 store's tests: path-style buckets, and the calls the store
 * makes (PUT, GET, HEAD, DELETE Object; HEAD Bucket; ListObjectsV2) answered as S3 answers them (status codes, ETag,
 * Last-Modified, XML listings a page at a time with continuation tokens, XML errors). Every request must be signed with AWS Signature V4 for its keys: the payload hash (unless the client
 * declares it UNSIGNED-PAYLOAD, as S3 allows) is checked against the body, and the signature recomputed from the request's signed headers (a wrong secret, region or tampered path gets
 * S3's 403 SignatureDoesNotMatch).
 */
export interface FakeS3 {
  url: string;
  /** Objects by `bucket/key`. */
  readonly objects: Map<string, Buffer>;
  /** Each object's last write (Last-Modified), by `bucket/key`; a test may set it back in time. */
  readonly modified: Map<string, Date>;
  /** The most keys a listing page holds (S3's is 1,000; `max-keys` may ask for fewer). */
  pageSize: number;
  /** Called after each listing page is answered (a test's moment to change the bucket between list and look). */
  afterList: (() => void) | null;
  /** Every request, in order: method and path. */
  readonly requests: { method: string; path: string }[];
  /** Answers every request with this status (a failing store), until set to null. */
  failWith: number | null;
  close(): Promise<void>;
}

export interface FakeS3Options {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export async function startFakeS3(options: FakeS3Options): Promise<FakeS3> {
  const objects = new Map<string, Buffer>();
  const modified = new Map<string, Date>();
  const requests: { method: string; path: string }[] = [];
  const state = { failWith: null as number | null, pageSize: 1000, afterList: null as (() => void) | null };

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => xmlError(res, 500, 'InternalError', String(error)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const method = req.method ?? 'GET';
    requests.push({ method, path: url.pathname });
    if (state.failWith !== null) return xmlError(res, state.failWith, 'ServiceUnavailable', 'Failing on purpose.');
    const denied = await signatureProblem(req, url, body, options);
    if (denied) return xmlError(res, 403, denied.code, denied.message);
    const [bucket, ...keyParts] = url.pathname.slice(1).split('/');
    const key = keyParts.map(decodeURIComponent).join('/');
    if (bucket !== options.bucket) return xmlError(res, 404, 'NoSuchBucket', 'The specified bucket does not exist.');
    if (key === '') {
      if (method === 'HEAD') return void res.writeHead(200).end();
      if (method === 'GET' && url.searchParams.get('list-type') === '2') return listObjects(res, bucket, url.searchParams);
      return xmlError(res, 405, 'MethodNotAllowed', 'Only HEAD Bucket and ListObjectsV2 are served here.');
    }
    const id = `${bucket}/${key}`;
    const etag = `"${createHash('md5').update(objects.get(id) ?? body).digest('hex')}"`;
    switch (method) {
      case 'PUT':
        objects.set(id, body);
        modified.set(id, new Date(Math.floor(Date.now() / 1000) * 1000));
        return void res.writeHead(200, { ETag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
      case 'GET':
      case 'HEAD': {
        const object = objects.get(id);
        if (!object) return method === 'HEAD' ? void res.writeHead(404).end() : xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
        res.writeHead(200, {
          'Content-Type': 'application/octet-stream', 'Content-Length': String(object.length), ETag: etag,
          'Last-Modified': (modified.get(id) ?? new Date()).toUTCString(),
        });
        return void res.end(method === 'GET' ? object : undefined);
      }
      case 'DELETE':
        objects.delete(id);
        modified.delete(id);
        return void res.writeHead(204).end();
      default:
        return xmlError(res, 405, 'MethodNotAllowed', `${method} is not served here.`);
    }
  }

  /** ListObjectsV2: the bucket's keys under `prefix` in UTF-8 byte order, `max-keys` (at most pageSize) a page. */
  function listObjects(res: ServerResponse, bucket: string, params: URLSearchParams): void {
    const prefix = params.get('prefix') ?? '';
    const after = params.has('continuation-token') ? Buffer.from(params.get('continuation-token')!, 'base64').toString('utf8') : null;
    const max = Math.min(state.pageSize, Number(params.get('max-keys') ?? 1000));
    const keys = [...objects.keys()].filter((id) => id.startsWith(`${bucket}/`)).map((id) => id.slice(bucket.length + 1))
      .filter((key) => key.startsWith(prefix) && (after === null || Buffer.compare(Buffer.from(key), Buffer.from(after)) > 0))
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const page = keys.slice(0, max);
    const truncated = keys.length > page.length;
    const contents = page.map((key) => {
      const object = objects.get(`${bucket}/${key}`)!;
      return `<Contents><Key>${escapeXml(key)}</Key><LastModified>${(modified.get(`${bucket}/${key}`) ?? new Date()).toISOString()}</LastModified>`
        + `<ETag>&quot;${createHash('md5').update(object).digest('hex')}&quot;</ETag><Size>${object.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    });
    const next = truncated ? `<NextContinuationToken>${escapeXml(Buffer.from(page[page.length - 1]).toString('base64'))}</NextContinuationToken>` : '';
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name>`
      + `<Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>`
      + `${params.has('continuation-token') ? `<ContinuationToken>${escapeXml(params.get('continuation-token')!)}</ContinuationToken>` : ''}${next}${contents.join('')}</ListBucketResult>`);
    state.afterList?.();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    modified,
    requests,
    get afterList() {
      return state.afterList;
    },
    set afterList(value: (() => void) | null) {
      state.afterList = value;
    },
    get pageSize() {
      return state.pageSize;
    },
    set pageSize(value: number) {
      state.pageSize = value;
    },
    get failWith() {
      return state.failWith;
    },
    set failWith(value: number | null) {
      state.failWith = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function signatureProblem(req: IncomingMessage, url: URL, body: Buffer, options: FakeS3Options): Promise<{ code: string; message: string } | null> {
  const authorization = req.headers.authorization ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return { code: 'AccessDenied', message: 'The request is not signed with AWS Signature V4.' };
  const [, accessKeyId, , region, signedHeaders, signature] = match;
  if (accessKeyId !== options.accessKeyId) return { code: 'InvalidAccessKeyId', message: 'The access key does not exist.' };
  if (region !== options.region) return { code: 'AuthorizationHeaderMalformed', message: `The region "${region}" is wrong; expecting "${options.region}".` };
  const payloadHash = req.headers['x-amz-content-sha256'];
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== createHash('sha256').update(body).digest('hex')) return { code: 'XAmzContentSHA256Mismatch', message: 'The payload hash does not match the body.' };
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) headers[name] = String(req.headers[name] ?? '');
  const signer = new AwsV4Signer({
    method: req.method,
    url: url.toString(),
    headers,
    body: body.length > 0 ? new Uint8Array(body) : undefined,
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    service: 's3',
    region: options.region,
    datetime: String(req.headers['x-amz-date']),
  });
  const expected = /Signature=([0-9a-f]{64})/.exec((await signer.sign()).headers.get('authorization') ?? '')?.[1];
  return expected === signature ? null : { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function xmlError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
