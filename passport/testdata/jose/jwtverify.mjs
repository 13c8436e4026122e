// Verifies passport credentials with the npm jose package's jwtVerify, as a
// relying party holding only the issuer's public JWK would. It reads one
// JSON object from standard input:
//
//   {"cases":[{"name":…,"jwk":{…},"jws":"…","issuer":"…","subject":"…","at":<Unix seconds>}]}
//
// and writes {"results":[{"name":…,"ok":true,"payload":{…}} or
// {"name":…,"ok":false,"code":"ERR_…"}]}. jwtVerify checks the signature,
// the typ header, iss, sub, and exp and nbf against the time given, with no
// clock tolerance.
import { importJWK, jwtVerify } from 'jose';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const results = [];
for (const c of input.cases) {
  try {
    const key = await importJWK(c.jwk, c.jwk.alg);
    const { payload } = await jwtVerify(c.jws, key, {
      algorithms: [c.jwk.alg],
      typ: 'passport+jws',
      issuer: c.issuer,
      subject: c.subject,
      currentDate: new Date(c.at * 1000),
    });
    results.push({ name: c.name, ok: true, payload });
  } catch (err) {
    results.push({ name: c.name, ok: false, code: err.code ?? String(err) });
  }
}
process.stdout.write(JSON.stringify({ results }) + '\n');
