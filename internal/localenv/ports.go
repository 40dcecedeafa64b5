/*
Copyright 2026 The provider-git Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package localenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ListeningPorts returns the IPv4 TCP ports process pid listens on: the
// sockets among its open files (/proc/pid/fd) that /proc/pid/net/tcp lists
// in state LISTEN. It is how a test learns the port of a process it told to
// bind port 0: the kernel's pick, held by that process from the bind on, where
// a port found free here and closed before the process binds it can be taken
// by another in between (`bind: address already in use`, TestSharePause).
// It reads /proc only, so it answers for a stopped (SIGSTOP) process too.
func ListeningPorts(pid int) ([]int, error) {
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return nil, err
	}
	sockets := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil {
			if inode, ok := strings.CutPrefix(l, "socket:["); ok {
				sockets[strings.TrimSuffix(inode, "]")] = true
			}
		}
	}
	table, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		return nil, err
	}
	var ports []int
	for _, line := range strings.Split(string(table), "\n")[1:] {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != tcpListen || !sockets[f[9]] {
			continue
		}
		_, hexPort, _ := strings.Cut(f[1], ":")
		port, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil {
			return nil, err
		}
		ports = append(ports, int(port))
	}
	return ports, nil
}

// tcpListen is TCP_LISTEN as /proc/net/tcp writes a socket's state (hex).
const tcpListen = "0A"
