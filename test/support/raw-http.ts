import { request as httpRequest } from 'node:http';

/** A response as it came off the wire: every header line as sent, and the body as text. */
export interface RawResponse {
  status: number;
  /** Header names and values in order, as the server wrote them. */
  rawHeaders: string[];
  text: string;
}

/**
 * Sends one request with `node:http` rather than fetch, so a test sees the header lines as written and
 * may send a body with GET (as API Gateway allows).
 */
export const rawRequest = (
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method, headers: options.headers ?? {} },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            rawHeaders: response.rawHeaders,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });

// RFC 9110: a field name is a token; a field value is visible ASCII, spaces and tabs (obs-text, bytes
// 0x80-0xFF, is obsolete and read differently by each client, so none is valid here).
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

/** What is wrong with a response's header lines (invalid names or values, or too large a block), if anything. */
export function headerProblems(rawHeaders: string[], maxBytes = 8192): string[] {
  const problems: string[] = [];
  let bytes = 0;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    const value = rawHeaders[index + 1] as string;
    bytes += name.length + value.length + 4;
    if (!TOKEN.test(name)) problems.push(`invalid header name ${JSON.stringify(name)}`);
    if (!FIELD_VALUE.test(value)) problems.push(`invalid value of ${name}: ${JSON.stringify(value)}`);
  }
  // Proxies and clients refuse larger header blocks (nginx's proxy buffer is 4-8 KiB, Node's parser 16 KiB).
  if (bytes > maxBytes) problems.push(`the header block is ${bytes} bytes, over ${maxBytes}`);
  return problems;
}

/** The value of a header of a raw response (names compared case-insensitively), undefined when absent. */
export function rawHeader(rawHeaders: string[], name: string): string | undefined {
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() === name) return rawHeaders[index + 1];
  }
  return undefined;
}
