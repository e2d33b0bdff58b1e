// How the CLI proves it may use the API on the local socket, without sending the secret: each side
// shows an HMAC of both sides' nonces under the run's API secret, so a peer that only reaches the
// socket learns nothing it can use, a proof from one connection is worthless on another, and the CLI
// knows it talks to the broker that wrote the secret, not to something else listening at that path.
//
//   CLI → broker   {"countersign":1,"api":true,"nonce":"<cli nonce>"}
//   broker → CLI   {"countersign":1,"ok":true,"mode":"challenge","nonce":"<broker nonce>","proof":"<broker proof>"}
//   CLI → broker   {"countersign":1,"proof":"<cli proof>"}
//   broker → CLI   {"countersign":1,"ok":true,"mode":"api"}      (or ok: false and the socket closed)
import { createHmac, randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { tokensEqual } from '../store/token-file.js';
import { HANDSHAKE_VERSION, NONCE_PATTERN, readFirstLine, type HelloReply } from './handshake.js';

export function newNonce(): string {
  return randomBytes(32).toString('base64url');
}

// The two proofs are labelled apart, so the broker's proof can never be sent back as the CLI's.
export function brokerProof(apiSecret: string, cliNonce: string, brokerNonce: string): string {
  return mac(apiSecret, `countersign api broker\n${cliNonce}\n${brokerNonce}`);
}

export function cliProof(apiSecret: string, cliNonce: string, brokerNonce: string): string {
  return mac(apiSecret, `countersign api cli\n${cliNonce}\n${brokerNonce}`);
}

function mac(secret: string, text: string): string {
  return createHmac('sha256', Buffer.from(secret, 'base64url')).update(text, 'utf8').digest('base64url');
}

export type ChallengeResult = { ok: true } | { ok: false; why: string };

/** The broker's half, after an `api` hello: true once the peer proved it knows this run's API secret. */
export async function challengeApiPeer(socket: Socket, apiSecret: string, cliNonce: string | undefined): Promise<ChallengeResult> {
  if (cliNonce === undefined) return { ok: false, why: 'it asked for the API without a proof (an older countersign command, or not Countersign)' };
  const nonce = newNonce();
  const challenge: HelloReply = { countersign: HANDSHAKE_VERSION, ok: true, mode: 'challenge', nonce, proof: brokerProof(apiSecret, cliNonce, nonce) };
  socket.write(JSON.stringify(challenge) + '\n');
  let proof: unknown;
  try {
    const answer = JSON.parse(await readFirstLine(socket)) as { countersign?: unknown; proof?: unknown };
    proof = answer.countersign === HANDSHAKE_VERSION ? answer.proof : undefined;
  } catch (err) {
    return { ok: false, why: `it did not answer the API challenge (${(err as Error).message})` };
  }
  if (typeof proof !== 'string' || proof.length > 200) return { ok: false, why: 'its answer to the API challenge holds no proof' };
  if (!tokensEqual(proof, cliProof(apiSecret, cliNonce, nonce))) return { ok: false, why: 'its proof does not match the socket secret of this broker run' };
  return { ok: true };
}

/** The CLI's half: resolves once the broker accepted; throws a sentence for the person otherwise. */
export async function proveApiPeer(socket: Socket, apiSecret: string): Promise<void> {
  const nonce = newNonce();
  socket.write(JSON.stringify({ countersign: HANDSHAKE_VERSION, api: true, nonce }) + '\n');
  const challenge = JSON.parse(await readFirstLine(socket)) as HelloReply;
  if (!challenge.ok) throw new Error(`Countersign's broker refused the CLI: ${challenge.error}`);
  if (challenge.mode !== 'challenge' || typeof challenge.nonce !== 'string' || !NONCE_PATTERN.test(challenge.nonce)) {
    throw new Error('the broker on this socket did not ask the CLI to prove itself (an older Countersign?). Restart Countersign.');
  }
  if (typeof challenge.proof !== 'string' || !tokensEqual(challenge.proof, brokerProof(apiSecret, nonce, challenge.nonce))) {
    throw new Error('what answers on this socket could not prove it is the Countersign broker that wrote the socket secret. The CLI sent it nothing more.');
  }
  socket.write(JSON.stringify({ countersign: HANDSHAKE_VERSION, proof: cliProof(apiSecret, nonce, challenge.nonce) }) + '\n');
  const reply = JSON.parse(await readFirstLine(socket)) as HelloReply;
  if (!reply.ok) throw new Error(`Countersign's broker refused the CLI: ${reply.error}`);
  if (reply.mode !== 'api') throw new Error("Countersign's broker refused the CLI: it does not offer the API");
}
