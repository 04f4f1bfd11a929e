// Package franzgo pins franz-go for test/interop/franz-go.test.ts, which runs
// franz-go's own kgo integration tests (go test github.com/twmb/franz-go/pkg/kgo)
// against a broker: this module only names the version they come from.
package franzgo

import _ "github.com/twmb/franz-go/pkg/kgo"
