// First step of every OTLP/HTTP export: pick the encoding from Content-Type, undo the
// Content-Encoding with a hard cap on the decoded size (a small gzip body can inflate to
// gigabytes), and parse JSON. Protobuf bytes are handed on as they are: each signal's decoder
// walks them once without building an intermediate object tree.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { AppError } from '../errors.ts';

export type OtlpFormat = 'json' | 'protobuf';

export type DecodedBody =
  | { format: 'json'; json: unknown }
  | { format: 'protobuf'; bytes: Buffer };

export const OTLP_CONTENT_TYPES: Record<OtlpFormat, string> = {
  json: 'application/json',
  protobuf: 'application/x-protobuf',
};

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

/**
 * The OTLP format a Content-Type names, or undefined. Parameters (`; charset=utf-8`) and case are
 * ignored. The route also uses it to answer errors in the client's format.
 */
export function otlpFormatOf(contentType: string | undefined): OtlpFormat | undefined {
  if (!contentType) return undefined;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  return undefined;
}

export const unsupportedMediaType = (contentType: string | undefined): AppError =>
  new AppError({
    code: 'unsupported_media_type',
    status: 415,
    detail: `Content-Type ${JSON.stringify(contentType ?? '')} is not supported; send application/json or application/x-protobuf.`,
  });

export const payloadTooLarge = (maxDecodedBytes: number): AppError =>
  new AppError({
    code: 'payload_too_large',
    status: 413,
    detail: `The decoded request body exceeds ${maxDecodedBytes} bytes.`,
  });

export const undecodable = (detail: string, cause?: unknown): AppError =>
  new AppError({ code: 'otlp_undecodable', status: 400, detail, cause });

/**
 * Decodes an OTLP/HTTP request body. Async because inflating runs on the libuv pool, keeping
 * the event loop free for other requests.
 * @throws AppError 415 unsupported_media_type (Content-Type) or unsupported_content_encoding,
 *   413 payload_too_large (decoded size over maxDecodedBytes), 400 otlp_undecodable.
 */
export async function decodeBody(
  body: Buffer,
  contentType: string | undefined,
  contentEncoding: string | undefined,
  maxDecodedBytes: number,
): Promise<DecodedBody> {
  const format = otlpFormatOf(contentType);
  if (!format) throw unsupportedMediaType(contentType);
  const bytes = await decompress(body, contentEncoding, maxDecodedBytes);
  if (format === 'protobuf') return { format, bytes };
  // An empty body is an empty export: OTLP says answer success, so do not fail JSON.parse on it.
  if (bytes.length === 0) return { format, json: {} };
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw undecodable('The request body is not valid JSON.', error);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw undecodable('The request body must be a JSON object (an OTLP export request).');
  }
  return { format, json };
}

async function decompress(body: Buffer, contentEncoding: string | undefined, max: number): Promise<Buffer> {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') {
    if (body.length > max) throw payloadTooLarge(max);
    return body;
  }
  const options = { maxOutputLength: max };
  try {
    switch (encoding) {
      case 'gzip':
      case 'x-gzip':
        return await gunzip(body, options);
      case 'deflate':
        // HTTP "deflate" is the zlib format, but some clients send a raw deflate stream.
        return await inflate(body, options).catch((error: unknown) => {
          if (isTooLarge(error)) throw error;
          return inflateRaw(body, options);
        });
      case 'br':
        return await brotli(body, options);
      default:
        throw new AppError({
          code: 'unsupported_content_encoding',
          status: 415,
          detail: `Content-Encoding ${JSON.stringify(encoding)} is not supported; send gzip, deflate, br or none.`,
        });
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (isTooLarge(error)) throw payloadTooLarge(max);
    throw undecodable(`The request body is not valid ${encoding} data.`, error);
  }
}

function isTooLarge(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
}
