module github.com/nebius/gosdk

go 1.25.0
