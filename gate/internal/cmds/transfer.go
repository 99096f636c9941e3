package cmds

// Transfer is what a file-transfer client (sftp, ftp, lftp, tftp,
// smbclient) takes its command language from: put, get, mirror -R. It
// reads commands from stdin unless the command line gives the batch: a
// file of commands (Files: sftp -b FILE, lftp -f FILE; "-" is stdin), or
// commands to run and exit (Exits: lftp -c). Scripts are commands run
// before stdin is read (lftp -e). Each is a short flag's letter, 0 for
// none.
type Transfer struct{ Files, Scripts, Exits byte }

var transfers = map[string]Transfer{
	"sftp": {Files: 'b'},
	"lftp": {Files: 'f', Scripts: 'e', Exits: 'c'},
	"ftp":  {}, "tftp": {}, "smbclient": {},
}

// TransferOf is name's command-language options, and whether name is a
// file-transfer client.
func TransferOf(name string) (Transfer, bool) {
	t, ok := transfers[name]
	return t, ok
}
