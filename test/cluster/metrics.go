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

package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// MetricsReader names the ServiceAccount MetricsScraper scrapes as, in the
// release namespace, and the chart's ClusterRole bound to it.
const (
	MetricsReaderNamespace      = "grove-system"
	MetricsReaderServiceAccount = "grove-metrics-scraper"
	MetricsReaderClusterRole    = "grove-metrics-reader"
)

// MetricsScraper reads the authenticated /metrics endpoints of grove-operator
// and grove-scheduler (HTTPS, self-signed certificates) with the token of a
// ServiceAccount bound to grove-metrics-reader, as Prometheus does.
type MetricsScraper struct {
	Token  string
	client *http.Client
}

// NewMetricsScraper makes sure the ServiceAccount MetricsReaderServiceAccount
// exists and is bound to grove-metrics-reader, and requests a token for it
// (valid for a day) with the admin config cfg.
func NewMetricsScraper(ctx context.Context, cfg *rest.Config) (*MetricsScraper, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: MetricsReaderNamespace, Name: MetricsReaderServiceAccount}}
	if _, err := cs.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating ServiceAccount %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: MetricsReaderServiceAccount},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: MetricsReaderClusterRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: sa.Namespace, Name: sa.Name}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("binding %s to %s: %w", sa.Name, MetricsReaderClusterRole, err)
	}
	token, err := ServiceAccountToken(ctx, cs, sa.Namespace, sa.Name)
	if err != nil {
		return nil, err
	}
	return &MetricsScraper{Token: token, client: InsecureHTTPSClient()}, nil
}

// ServiceAccountToken requests a bound token for a ServiceAccount, valid for a day.
func ServiceAccountToken(ctx context.Context, cs kubernetes.Interface, namespace, name string) (string, error) {
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return tr.Status.Token, nil
}

// InsecureHTTPSClient talks HTTPS without verifying the server: both metrics
// servers present certificates they signed themselves at start.
func InsecureHTTPSClient() *http.Client {
	return &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed metrics certificates on loopback
	}
}

// Get fetches url with the scraper's token; a status other than 200 is an
// error carrying the status and body.
func (s *MetricsScraper) Get(url string) (io.ReadCloser, error) {
	return GetWithToken(s.client, url, s.Token)
}

// GetWithToken fetches url with token as bearer token (none when empty).
func GetWithToken(c *http.Client, url, token string) (io.ReadCloser, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, &HTTPStatusError{URL: url, StatusCode: resp.StatusCode, Body: string(b)}
	}
	return resp.Body, nil
}

// HTTPStatusError is a response other than 200.
type HTTPStatusError struct {
	URL        string
	StatusCode int
	Body       string
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("GET %s: %d %s: %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode), e.Body)
}
