package schemas

import (
	"maps"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// Schema file names that are not derived from a method.
const (
	// PermissionReplySchema is the PermissionReply DTO as any reader must
	// accept it: the three object variants plus the legacy bare string.
	PermissionReplySchema = "permission-reply.schema.json"
	// PolicySchema is the policy file (user and project level).
	PolicySchema = "policy.schema.json"
)

// resultNull marks a method whose result is JSON null (shutdown).
type resultNull struct{}

// replyCanonical and replyLegacy mark the two readings of PermissionReply:
// what the peer must emit (objects only) and what it must accept from an
// editor (objects or the legacy bare string).
type (
	replyCanonical struct{}
	replyLegacy    struct{}
)

// methodSpec says which protocol types carry one method's params and result;
// nil means the method has no schema on that side.
type methodSpec struct {
	name   string
	params any
	result any
}

// methodSpecs lists every method of protocol/methods.go. Methods without
// params (initialized, shutdown, exit) have none to validate; notifications
// have no result.
var methodSpecs = []methodSpec{
	{protocol.MethodInitialize, protocol.InitializeParams{}, protocol.InitializeResult{}},
	{protocol.MethodInitialized, nil, nil},
	{protocol.MethodShutdown, nil, resultNull{}},
	{protocol.MethodExit, nil, nil},
	{protocol.MethodCancelRequest, protocol.CancelParams{}, nil},
	{protocol.MethodACPCancelRequest, protocol.ACPCancelRequestParams{}, nil},
	{protocol.MethodSessionOpen, protocol.SessionOpenParams{}, protocol.SessionOpenResult{}},
	{protocol.MethodSessionTurn, protocol.SessionTurnParams{}, nil},
	{protocol.MethodSessionClose, protocol.SessionCloseParams{}, nil},
	{protocol.MethodRequestPermission, protocol.RequestPermissionParams{}, replyCanonical{}},
	{protocol.MethodPermissionAsk, protocol.AskParams{}, replyLegacy{}},
	{protocol.MethodPermissionCheck, protocol.CheckParams{}, protocol.CheckResult{}},
	{protocol.MethodPermissionAudit, protocol.AuditParams{}, protocol.AuditResult{}},
	{protocol.MethodPermissionRules, protocol.RulesParams{}, protocol.RulesResult{}},
	{protocol.MethodGrantsList, protocol.GrantsListParams{}, protocol.GrantsListResult{}},
	{protocol.MethodGrantsRevoke, protocol.GrantsRevokeParams{}, protocol.Empty{}},
	{protocol.MethodACPRequestPermission, protocol.ACPRequestPermissionParams{}, protocol.ACPRequestPermissionResult{}},
	{protocol.MethodACPSessionUpdate, protocol.ACPSessionUpdateParams{}, nil},
	{protocol.MethodACPSessionCancel, protocol.ACPSessionCancelParams{}, nil},
}

// fileBase turns a method name into a file name stem: "/" becomes "-", and
// the "$/" prefix of the cancel notifications is dropped ("$/cancelRequest"
// → "cancelRequest") because "$" in a file name is a trap in shells and
// Makefiles.
func fileBase(method string) string {
	return strings.ReplaceAll(strings.TrimPrefix(method, "$/"), "/", "-")
}

// paramsFile and resultFile map a method to its schema file names; built
// once from methodSpecs.
var paramsFile, resultFile = func() (map[string]string, map[string]string) {
	p, r := map[string]string{}, map[string]string{}
	for _, m := range methodSpecs {
		if m.params != nil {
			p[m.name] = fileBase(m.name) + ".params.schema.json"
		}
		if m.result != nil {
			r[m.name] = fileBase(m.name) + ".result.schema.json"
		}
	}
	return p, r
}()

// ParamsSchema names the schema file for a method's params; false when the
// method has none (it takes no params, or it is unknown).
func ParamsSchema(method string) (string, bool) {
	f, ok := paramsFile[method]
	return f, ok
}

// ResultSchema names the schema file for a method's result; false for
// notifications and unknown methods.
func ResultSchema(method string) (string, bool) {
	f, ok := resultFile[method]
	return f, ok
}

// ParamsSchemas maps every method that has a params schema to its file name
// (a copy, for the conformance runner and docs).
func ParamsSchemas() map[string]string { return maps.Clone(paramsFile) }

// ResultSchemas maps every request that has a result schema to its file
// name (a copy).
func ResultSchemas() map[string]string { return maps.Clone(resultFile) }
