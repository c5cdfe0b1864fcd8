//go:build !unix

package wacz

// lockState cannot lock on this platform (neither can the crawl's store): the caller must not
// package a crawl that is running.
func lockState(string) (unlock func(), err error) { return func() {}, nil }
