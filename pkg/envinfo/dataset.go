package envinfo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// SidecarSuffix is appended to a generated file's name to name its
// description: data.ilp.gz is described by data.ilp.gz.dataset.json.
const SidecarSuffix = ".dataset.json"

// WriteDataset writes the description of the generated file path (whose
// size on disk is taken now) as path + SidecarSuffix, atomically.
func WriteDataset(path string, d Dataset) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	d.Source = "generate_data"
	d.FileBytes = st.Size()
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp := path + SidecarSuffix + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path+SidecarSuffix); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// ReadDataset returns the description generate_data wrote beside path.
// It returns (nil, nil) when there is none, and an error when there is one
// that cannot be read or that describes a file of another size.
func ReadDataset(path string) (*Dataset, error) {
	name := path + SidecarSuffix
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var d Dataset
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if d.FileBytes != st.Size() {
		return nil, fmt.Errorf("%s describes a file of %d bytes, %s has %d: ignored", name, d.FileBytes, path, st.Size())
	}
	d.Source = "generate_data"
	return &d, nil
}
