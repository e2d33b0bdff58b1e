// The one-field form a client shows when it approves a call itself (inline-approval.ts). Its own module:
// the relay's elicitation guard reads it too, to refuse server forms that imitate it.
export const INLINE_SCHEMA = {
  type: 'object',
  properties: {
    decision: { type: 'string', title: 'Decision', enum: ['approve', 'deny'], enumNames: ['Approve', 'Deny'] },
  },
  required: ['decision'],
} as const;
