package queryload

// GeneratedAs is generatedAs for the tests that load through the engine
// (package queryload_test).
var GeneratedAs = generatedAs
