export { type LintFinding, type LintOptions, lintOpenApi } from './lint-openapi.js';
export { LINT_RULE_IDS, LINT_RULES, type LintRuleId, lintRuleDocs } from './rules.js';
