package warc

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFormatRecordID: formatRecordID writes what fmt.Sprintf wrote before it.
func TestFormatRecordID(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 1000 {
		var u [16]byte
		switch i {
		case 0: // all zeros
		case 1:
			for j := range u {
				u[j] = 0xff
			}
		default:
			for j := range u {
				u[j] = byte(r.Uint32())
			}
		}
		want := fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
		if got := formatRecordID(u); got != want {
			t.Fatalf("formatRecordID(%x) = %q, want %q", u, got, want)
		}
	}
}
