/**
 * Reason phrases of the 4xx and 5xx status codes (RFC 9110 section 15, with RFC 6585, RFC 7725,
 * RFC 8470 and the WebDAV codes of RFC 4918 and RFC 5842), as jshttp `statuses` names them but for
 * the two RFC 9110 renamed: 413 Content Too Large and 422 Unprocessable Content.
 */
const PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  418: "I'm a Teapot",
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  506: 'Variant Also Negotiates',
  507: 'Insufficient Storage',
  508: 'Loop Detected',
  509: 'Bandwidth Limit Exceeded',
  510: 'Not Extended',
  511: 'Network Authentication Required',
};

/**
 * The reason phrase of a 4xx or 5xx status. An unregistered code reads as its class's x00 code
 * (RFC 9110 section 15: a recipient treats an unrecognized code as the x00 code of its class).
 *
 * @example reasonPhrase(404) // 'Not Found'
 */
export function reasonPhrase(status: number): string {
  return PHRASES[status] ?? (status >= 500 ? PHRASES[500]! : PHRASES[400]!);
}
