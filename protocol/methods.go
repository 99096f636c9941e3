package protocol

// Version is the protocol version carried by initialize.
const Version = 1

// Method names, editor → peer unless noted.
const (
	MethodInitialize        = "initialize"
	MethodInitialized       = "initialized" // notification
	MethodShutdown          = "shutdown"
	MethodExit              = "exit"             // notification
	MethodCancelRequest     = "$/cancelRequest"  // notification, LSP style
	MethodACPCancelRequest  = "$/cancel_request" // notification, ACP style
	MethodSessionOpen       = "session/open"
	MethodSessionTurn       = "session/turn"  // notification
	MethodSessionClose      = "session/close" // notification
	MethodRequestPermission = "session/requestPermission"
	MethodPermissionAsk     = "permission/ask" // peer → editor request
	MethodPermissionCheck   = "permission/check"
	MethodPermissionAudit   = "permission/audit"
	MethodPermissionRules   = "permission/rules"
	MethodGrantsList        = "grants/list"
	MethodGrantsRevoke      = "grants/revoke"

	// ACP (Agent Client Protocol) methods accepted before initialize.
	MethodACPRequestPermission = "session/request_permission"
	MethodACPSessionUpdate     = "session/update" // notification
	MethodACPSessionCancel     = "session/cancel" // notification
)

// JSON-RPC error codes used by the peer.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeNotInitialized = -32002
	CodeCancelled      = -32800
)
