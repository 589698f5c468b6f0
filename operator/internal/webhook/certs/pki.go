/*
Copyright 2026 The Grove Authors.

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

package certs

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// Subject of the certificate authority the operator creates.
const (
	CACommonName   = "Grove-CA"
	CAOrganization = "Grove"
)

// clockSkew backdates certificates so API servers with a slightly late clock accept them.
const clockSkew = time.Hour

// KeyPair is a PEM-encoded certificate and its private key.
type KeyPair struct {
	// CertPEM is the PEM-encoded certificate.
	CertPEM []byte
	// KeyPEM is the PEM-encoded PKCS#8 private key.
	KeyPEM []byte
}

// NewCA creates a self-signed certificate authority valid from now for validity.
func NewCA(now time.Time, validity time.Duration) (KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generating CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: CACommonName, Organization: []string{CAOrganization}},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return sign(tmpl, tmpl, key, key)
}

// NewServingCert issues a TLS server certificate for dnsNames and ips, signed
// by ca and valid from now for validity (capped at the CA's expiry).
func NewServingCert(ca KeyPair, dnsNames []string, ips []net.IP, now time.Time, validity time.Duration) (KeyPair, error) {
	caCert, caKey, err := ca.Parse()
	if err != nil {
		return KeyPair{}, fmt.Errorf("parsing CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generating serving key: %w", err)
	}
	notAfter := now.Add(validity)
	if notAfter.After(caCert.NotAfter) {
		notAfter = caCert.NotAfter
	}
	cn := ""
	if len(dnsNames) > 0 {
		cn = dnsNames[0]
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: []string{CAOrganization}},
		DNSNames:    dnsNames,
		IPAddresses: ips,
		NotBefore:   now.Add(-clockSkew),
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return sign(tmpl, caCert, key, caKey)
}

func sign(tmpl, parent *x509.Certificate, key *ecdsa.PrivateKey, parentKey crypto.Signer) (KeyPair, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return KeyPair{}, fmt.Errorf("generating serial number: %w", err)
	}
	tmpl.SerialNumber = serial
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		return KeyPair{}, fmt.Errorf("signing certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("encoding private key: %w", err)
	}
	return KeyPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// Parse decodes the pair and checks that the key belongs to the certificate.
func (kp KeyPair) Parse() (*x509.Certificate, crypto.Signer, error) {
	certs, err := ParseCertificates(kp.CertPEM)
	if err != nil {
		return nil, nil, err
	}
	block, _ := pem.Decode(kp.KeyPEM)
	if block == nil {
		return nil, nil, errors.New("no PEM private key")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		if ec, ecErr := x509.ParseECPrivateKey(block.Bytes); ecErr == nil {
			parsed = ec
		} else {
			return nil, nil, fmt.Errorf("parsing private key: %w", err)
		}
	}
	signer, ok := parsed.(crypto.Signer)
	if !ok {
		return nil, nil, errors.New("private key cannot sign")
	}
	pub, ok := signer.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(certs[0].PublicKey) {
		return nil, nil, errors.New("private key does not match the certificate")
	}
	return certs[0], signer, nil
}

// ParseCertificates decodes every PEM certificate in data, in order.
func ParseCertificates(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing certificate: %w", err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate")
	}
	return certs, nil
}

// needsRenewal says whether less than a third of cert's validity remains at now.
func needsRenewal(cert *x509.Certificate, now time.Time) bool {
	total := cert.NotAfter.Sub(cert.NotBefore)
	return cert.NotAfter.Sub(now) < total/3
}

// coversSANs says whether cert is issued for exactly dnsNames and ips.
func coversSANs(cert *x509.Certificate, dnsNames []string, ips []net.IP) bool {
	if !slices.Equal(sorted(cert.DNSNames), sorted(dnsNames)) || len(cert.IPAddresses) != len(ips) {
		return false
	}
	for _, ip := range ips {
		if !slices.ContainsFunc(cert.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// encodeCertificates PEM-encodes certs, in order.
func encodeCertificates(certs []*x509.Certificate) []byte {
	var buf bytes.Buffer
	for _, c := range certs {
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return buf.Bytes()
}
