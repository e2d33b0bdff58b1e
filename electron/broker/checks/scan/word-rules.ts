// The word rules: instructions aimed at the model ("do not tell the user", "<IMPORTANT>", chat-template
// markup) and references to secrets (key files, client configs, credential words). Each is a regex with
// the anchors the prefilter (anchor-search.ts) looks for first.
import type { AnchorRule } from './anchor-search.js';
import type { Rule } from './context.js';
import { quote } from './finding-text.js';

export interface Pattern extends AnchorRule {
  rule: Rule;
  re: RegExp;
  message: (noun: string, match: string) => string;
}

// Bounded gaps ({0,80}) keep every pattern linear on hostile input.
export const INSTRUCTIONS: Pattern[] = [
  {
    rule: 'injection',
    anchors: ['<'],
    re: /<\s*\/?\s*(?:important|system|system[_ -]?(?:prompt|message|instructions?)|critical|admin|hidden|assistant|(?:ai|user)[_ -]?instructions?|note[_ -]?to[_ -]?(?:ai|assistant|model|llm))\s*(?:\s[^<>]{0,40})?>|<\s*\/\s*(?:instructions?|secret|context|rules)\s*>/i,
    message: (noun, m) => `${noun} contains the tag ${quote(m)}, a known way to slip instructions to the model.`,
  },
  {
    rule: 'injection',
    anchors: ['<|', '[inst', '[/inst', '<<'],
    re: /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>/i,
    message: (noun, m) => `${noun} contains chat-template markup (${quote(m)}) that can impersonate the system prompt.`,
  },
  {
    rule: 'injection',
    anchors: ['user', 'mention'],
    needs: /\s/,
    re: /\b(?:do\s+not|don['’]t|never|must\s+not|should\s+not)\s+(?:\w+\s+){0,3}?(?:tell|mention|inform|notify|reveal|show|alert|disclose|let)\w*\b[^.!?]{0,80}?\busers?\b|\b(?:do\s+not|don['’]t|never)\s+mention\b|\bwithout\s+(?:telling|informing|notifying|alerting|asking|letting)\s+(?:the\s+)?users?\b|\bthe\s+user\s+(?:must|should|need)\s*(?:not|n['’]t)\s+(?:know|see|be\s+told)\b/i,
    message: (noun, m) => `${noun} asks the model to keep something from you (${quote(m)}).`,
  },
  {
    rule: 'injection',
    anchors: ['ignore', 'disregard', 'forget', 'override'],
    needs: /\s/,
    re: /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|other|system|original)\s+(?:instructions?|prompts?|rules|directions|guidelines|messages)\b/i,
    message: (noun) => `${noun} tells the model to ignore its earlier instructions.`,
  },
  {
    rule: 'directive',
    anchors: ['before'],
    needs: /\s/,
    re: /\bbefore\s+(?:using|calling|invoking|running|executing)\s+(?:this|the|any)\s+(?:tool|function)\b[^.!?]{0,80}?\b(?:read|open|fetch|cat|load|send|include|pass|upload)\b/i,
    message: (noun, m) => `${noun} tells the model to do something before using the tool (${quote(m)}).`,
  },
  {
    rule: 'directive',
    anchors: ['first', 'before'],
    needs: /\s/,
    re: /\byou\s+(?:must|need\s+to|have\s+to)\b[^.!?]{0,80}?\bfirst\b|\byou\s+first\s+(?:must|need\s+to|have\s+to)\b|\b(?:always|must)\s+(?:call|use|run)\s+this\s+tool\s+(?:first|before)\b/i,
    message: (noun, m) => `${noun} tells the model it must do something first (${quote(m)}).`,
  },
];

export const SECRETS: Pattern[] = [
  {
    rule: 'secretFile',
    anchors: ['.ssh', 'id_', 'authorized_keys'],
    re: /(?<![\w.-])\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b/i,
    message: (noun, m) => `${noun} refers to SSH keys (${quote(m)}).`,
  },
  {
    rule: 'secretFile',
    anchors: ['.aws', 'aws_secret_access_key'],
    re: /\.aws[\\/](?:credentials|config)\b|\baws_secret_access_key\b/i,
    message: (noun, m) => `${noun} refers to AWS credentials (${quote(m)}).`,
  },
  {
    rule: 'secretFile',
    anchors: ['mcp', 'claude', '.cursor', '.codeium'],
    needs: /\./,
    re: /\bmcp(?:_config)?\.json\b|\bclaude_desktop_config\.json\b|\.claude\.json\b|(?<![\w.-])\.cursor\b|\.codeium[\\/]windsurf\b/i,
    message: (noun, m) => `${noun} refers to AI client configuration (${quote(m)}), which holds other servers' credentials.`,
  },
  {
    rule: 'secretFile',
    anchors: ['.netrc', '.git-credentials', '.pgpass', '.npmrc', '.pypirc', '.gnupg', '.docker', '.kube'],
    re: /(?<![\w.-])\.(?:netrc|git-credentials|pgpass|npmrc|pypirc|gnupg)\b|\.docker[\\/]config\.json\b|\.kube[\\/]config\b/i,
    message: (noun, m) => `${noun} refers to a credentials file (${quote(m)}).`,
  },
  {
    rule: 'secretPhrase',
    anchors: ['.env'],
    re: /(?<![\w.$-])\.env(?:\.[\w-]+)?\b/i,
    message: (noun, m) => `${noun} refers to an environment file (${quote(m)}), which often holds secrets.`,
  },
  {
    rule: 'secretPhrase',
    // Every alternative's first word, so each anchor sits at the match's leading \b.
    anchors: ['api', 'pass', 'private', 'secret', 'client', 'access', 'auth', 'bearer', 'refresh', 'session', 'oauth', 'github', 'seed'],
    re: /\b(?:api[\s_-]?keys?|apikey|passwords?|passwd|passphrase|private[\s_-]?keys?|secret[\s_-]?keys?|client[\s_-]?secrets?|(?:access|auth|bearer|refresh|session|oauth|github|api)[\s_-]?tokens?|seed\s+phrase)\b/i,
    message: (noun, m) => `${noun} mentions credentials (${quote(m)}).`,
  },
];
// Bare words: "tokens" in pagination or LLM prose is normal, so these stay informational.
export const SECRET_WORDS: Pattern = {
  rule: 'secretWord',
  anchors: ['token', 'secret', 'credential'],
  re: /\b(?:tokens?|secrets?|credentials?)\b/i,
  message: (noun, m) => `${noun} uses the word ${quote(m)}, which can refer to credentials.`,
};

/** Every word rule in the order the prefilter numbers them (its tests check it never misses one). */
export const WORD_RULES: readonly Pattern[] = [...INSTRUCTIONS, ...SECRETS, SECRET_WORDS];
