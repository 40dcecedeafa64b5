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

package encrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"io"
	"regexp"
	"strconv"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// A SOPS value is encrypted with AES-256-GCM under the document's data key,
// a fresh 32-byte nonce per value, and additional authenticated data (the
// value's path, or the lastmodified time for the MAC), and stored as
//
//	ENC[AES256_GCM,data:<base64>,iv:<base64>,tag:<base64>,type:<type>]
//
// where type says how to read the plaintext back: str, int, float or bool.
// An empty string stays an empty string.

const (
	errCipher       = "cannot set up AES-256-GCM with the data key"
	errNonce        = "cannot generate a nonce"
	errValueFmt     = "not a SOPS encrypted value"
	errValueBase64  = "a SOPS encrypted value is not base64"
	errOpen         = "cannot decrypt a SOPS value (wrong data key, or the value was moved or edited)"
	errValueKindFmt = "a SOPS encrypted value of type %q is not supported"
)

// nonceSize is the nonce SOPS uses for every value; GCM's default is 12.
const nonceSize = 32

// tagSize is GCM's authentication tag, stored apart from the ciphertext.
const tagSize = 16

// encValue parses the SOPS value format; the same expression as SOPS's.
var encValue = regexp.MustCompile(`^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]`)

// valueCipher encrypts and decrypts a document's values with its data key.
type valueCipher struct {
	key  []byte
	rand io.Reader
}

func (c valueCipher) gcm(nonce int) (cipher.AEAD, error) {
	b, err := aes.NewCipher(c.key)
	if err != nil {
		return nil, errors.Wrap(err, errCipher)
	}
	g, err := cipher.NewGCMWithNonceSize(b, nonce)
	return g, errors.Wrap(err, errCipher)
}

// encrypt returns v (a string, int, float64 or bool) encrypted with aad.
func (c valueCipher) encrypt(v any, aad string) (string, error) {
	plain, err := macBytes(v, nil)
	if err != nil {
		return "", err
	}
	if s, ok := v.(string); ok && s == "" {
		return "", nil
	}
	g, err := c.gcm(nonceSize)
	if err != nil {
		return "", err
	}
	iv := make([]byte, nonceSize)
	if _, err := io.ReadFull(c.rand, iv); err != nil {
		return "", errors.Wrap(err, errNonce)
	}
	sealed := g.Seal(nil, iv, plain, []byte(aad))
	data, tag := sealed[:len(sealed)-tagSize], sealed[len(sealed)-tagSize:]
	enc := base64.StdEncoding.EncodeToString
	return "ENC[AES256_GCM,data:" + enc(data) + ",iv:" + enc(iv) + ",tag:" + enc(tag) + ",type:" + typeOf(v) + "]", nil
}

// typeOf names v's SOPS value type; v is one macBytes accepts.
func typeOf(v any) string {
	switch v.(type) {
	case int:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	}
	return "str"
}

// decrypt returns the value s holds, authenticated with aad. An empty s is
// an empty string.
func (c valueCipher) decrypt(s, aad string) (any, error) {
	if s == "" {
		return "", nil
	}
	m := encValue.FindStringSubmatch(s)
	if m == nil {
		return nil, errors.New(errValueFmt)
	}
	var parts [3][]byte
	for i := range parts {
		b, err := base64.StdEncoding.DecodeString(m[i+1])
		if err != nil {
			return nil, errors.Wrap(err, errValueBase64)
		}
		parts[i] = b
	}
	data, iv, tag := parts[0], parts[1], parts[2]
	if len(iv) == 0 {
		return nil, errors.New(errValueFmt)
	}
	g, err := c.gcm(len(iv))
	if err != nil {
		return nil, err
	}
	plain, err := g.Open(nil, iv, append(data, tag...), []byte(aad))
	if err != nil {
		return nil, errors.New(errOpen)
	}
	switch m[4] {
	case "str":
		return string(plain), nil
	case "int":
		v, err := strconv.Atoi(string(plain))
		return v, errors.Wrap(err, errOpen)
	case "float":
		v, err := strconv.ParseFloat(string(plain), 64)
		return v, errors.Wrap(err, errOpen)
	case "bool":
		v, err := strconv.ParseBool(string(plain))
		return v, errors.Wrap(err, errOpen)
	}
	return nil, errors.Errorf(errValueKindFmt, m[4])
}
