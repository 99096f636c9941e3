package gate

// For the tests of package gate_test (golden_test.go).

// SeedInput is one FuzzAnalyze input.
type SeedInput = fuzzInput

// SeedInputs are FuzzAnalyze's seeds.
var SeedInputs = fuzzInputs

// SeedLine is the composite line FuzzAnalyze builds from an input.
func SeedLine(in SeedInput) string { return fuzzLine(in.Cmd, in.W1, in.W2, in.Fl, in.Gl) }

// SeedEnv is FuzzAnalyze's world.
var SeedEnv = fuzzEnv
