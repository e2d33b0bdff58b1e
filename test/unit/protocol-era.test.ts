// The revision helpers: what a 2026-07-28 request claims, the shape of results Countersign makes, the headers
// towards URL servers, and which retry counts as a multi round-trip continuation.
import { describe, expect, it } from 'vitest';
import { envelopeOf, isModernRevision, shapedResult } from '../../electron/broker/relay/protocol/era.js';
import { modernHeaders } from '../../electron/broker/relay/protocol/http-headers.js';
import { InputRounds } from '../../electron/broker/relay/protocol/input-rounds.js';
import type { JsonRpcRequest } from '../../shared/jsonrpc.js';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = (params: Record<string, unknown>, id = 1): JsonRpcRequest => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

describe('revisions', () => {
  it('tells 2026-07-28 and later from the 2025 era, and never trusts odd strings', () => {
    expect(['2026-07-28', '2027-01-01'].map(isModernRevision)).toEqual([true, true]);
    expect(['2025-11-25', '2026-7-28', 'zzzz', undefined, 20260728].map(isModernRevision)).toEqual([false, false, false, false, false]);
  });

  it('adds resultType only for a modern request, and keeps one already there', () => {
    const denial = { content: [{ type: 'text', text: 'no' }], isError: true };
    expect(shapedResult(denial, call({ name: 't', _meta: meta }))).toEqual({ resultType: 'complete', ...denial });
    expect(shapedResult(denial, call({ name: 't' }))).toBe(denial);
    expect(shapedResult({ ...denial, resultType: 'input_required' }, call({ name: 't', _meta: meta })).resultType).toBe('input_required');
  });

  it('reads the envelope, and only its reserved keys', () => {
    const env = envelopeOf(call({ name: 't', _meta: { ...meta, progressToken: 5, other: 'x' } }));
    expect(env).toEqual({ revision: '2026-07-28', clientInfo: { name: 'c', version: '1' }, meta });
    expect(envelopeOf(call({ name: 't', _meta: { progressToken: 5 } }))).toBeUndefined();
  });

  it('derives the HTTP headers of a modern request from its body, and leaves 2025 bodies alone', () => {
    expect(modernHeaders(JSON.stringify(call({ name: 'read_note', _meta: meta })))).toEqual({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'read_note',
    });
    expect(modernHeaders(JSON.stringify(call({ name: 'né', _meta: meta })))?.['mcp-name']).toBe(`=?base64?${Buffer.from('né').toString('base64')}?=`);
    expect(modernHeaders(JSON.stringify(call({ name: 'read_note' })))).toBeUndefined();
    expect(modernHeaders(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: { _meta: meta } }))).toBeUndefined();
  });
});

describe('multi round-trip continuations', () => {
  const asked = {
    resultType: 'input_required',
    inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Sure?' } } },
    requestState: 's1',
  };

  it('matches the retry by its requestState and arguments, once', () => {
    const rounds = new InputRounds();
    rounds.record(call({ name: 'del', arguments: { n: 1 } }), asked, 'person', 1);
    const retry = call({ name: 'del', arguments: { n: 1 }, requestState: 's1', inputResponses: { confirm: { action: 'accept' } } }, 2);
    expect(rounds.continuationOf(retry)).toEqual({
      round: 2,
      requested: [{ key: 'confirm', method: 'elicitation/create', mode: 'form', message: 'Sure?' }],
      supplied: { confirm: { action: 'accept' } },
      earlier: 'person',
    });
    // Used up: the same retry again inherits nothing.
    expect(rounds.continuationOf(retry)).toEqual({ round: 2, requested: [], supplied: { confirm: { action: 'accept' } } });
  });

  it('does not let a state from one call continue another tool or other arguments', () => {
    const rounds = new InputRounds();
    rounds.record(call({ name: 'del', arguments: { n: 1 } }), asked, 'session', 1);
    const forged = rounds.continuationOf(call({ name: 'del', arguments: { n: 2 }, requestState: 's1', inputResponses: {} }));
    expect(forged?.earlier).toBeUndefined();
    expect(forged?.requested).toEqual([]);
    expect(rounds.continuationOf(call({ name: 'other', arguments: { n: 1 } }))).toBeUndefined();
  });
});
