module github.com/remnant/passportkit

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/gowebpki/jcs v1.0.2
)

require (
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
