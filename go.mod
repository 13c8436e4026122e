module github.com/remnant/passportkit

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/gowebpki/jcs v1.0.2
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/text v0.44.0
	golang.org/x/time v0.16.0
)

require (
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
