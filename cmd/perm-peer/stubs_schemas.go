package main

// STUB: replaced by the schemas/conformance issue (schemas.go, conformance.go).
